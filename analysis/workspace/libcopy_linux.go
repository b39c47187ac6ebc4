package workspace

// Linux's lseek whence values that find data and holes in a sparse file.
const seekData, seekHole = 3, 4
