-- Headless Neovim run of :checkhealth kast with a client attached:
--   KAST_CMD='kast lsp --stdio' KAST_FILE=.../Use.kt nvim --headless -u NONE \
--     -c 'set rtp^=editors/nvim' -c 'luafile editors/nvim/test/health.lua'
-- It prints the report's lines, then OK.
local function out(...) io.stdout:write(table.concat({ ... }, ' ') .. '\n') end
vim.cmd('filetype on')
require('kast').setup({ cmd = vim.split(os.getenv('KAST_CMD') or 'kast lsp --stdio', ' ', { trimempty = true }) })
vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('KAST_FILE')))
local bufnr = vim.api.nvim_get_current_buf()
vim.wait(20000, function()
  local c = vim.lsp.get_active_clients({ bufnr = bufnr })[1]
  return c ~= nil and c.initialized == true
end, 50)
vim.cmd('checkhealth kast')
for _, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do out('HEALTH ' .. l) end
out('OK')
vim.cmd('qall!')
