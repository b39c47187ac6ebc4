-- kast for Neovim: starts `kast lsp --stdio` for the languages kast analyses.
-- Works from Neovim 0.7 (vim.lsp.start_client) to 0.11+ (vim.lsp.config and
-- vim.lsp.enable, with lsp/kast.lua on the runtimepath).
local M = {}

M.filetypes = {
  'kotlin', 'go', 'python', 'typescript', 'typescriptreact', 'javascript', 'javascriptreact', 'java', 'rust', 'ruby',
}

-- A workspace root is the nearest directory holding one of these.
M.root_markers = {
  '.git', 'settings.gradle.kts', 'settings.gradle', 'build.gradle.kts', 'build.gradle', 'pom.xml',
  'go.mod', 'Cargo.toml', 'package.json', 'pyproject.toml', 'setup.py', 'Gemfile',
}

-- Notifications of kast's protocol families; replace them to show events.
M.handlers = {
  ['turn/event'] = function() end,
}

local function find_root(fname)
  local dir = vim.fn.fnamemodify(fname, ':p:h')
  while dir ~= '' do
    for _, marker in ipairs(M.root_markers) do
      if vim.loop.fs_stat(dir .. '/' .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then break end
    dir = parent
  end
  return vim.fn.getcwd()
end

-- config returns the client configuration; opts.cmd overrides the command.
function M.config(opts)
  opts = opts or {}
  return {
    name = 'kast',
    cmd = opts.cmd or { 'kast', 'lsp', '--stdio' },
    filetypes = opts.filetypes or M.filetypes,
    root_markers = M.root_markers,
    handlers = vim.tbl_extend('force', M.handlers, opts.handlers or {}),
    init_options = opts.init_options,
  }
end

-- setup registers kast for its filetypes.
function M.setup(opts)
  M.options = opts or {} -- for :checkhealth kast
  local cfg = M.config(opts)
  if vim.lsp.config and vim.lsp.enable then -- Neovim 0.11+
    vim.lsp.config('kast', cfg)
    vim.lsp.enable('kast')
    return
  end
  -- Neovim 0.7–0.10: one client per root, attached on FileType.
  local clients = {}
  vim.api.nvim_create_autocmd('FileType', {
    pattern = cfg.filetypes,
    callback = function(args)
      local root = find_root(vim.api.nvim_buf_get_name(args.buf))
      local id = clients[root]
      if not id or vim.lsp.client_is_stopped(id) then
        id = vim.lsp.start_client(vim.tbl_extend('force', cfg, {
          root_dir = root,
          workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ':t') } },
        }))
        clients[root] = id
      end
      if id then vim.lsp.buf_attach_client(args.buf, id) end
    end,
  })
end

return M
