-- nvim-lspconfig entry for kast: `require('kast.lspconfig')` before
-- `require('lspconfig').kast.setup{}` on lspconfig versions that take
-- custom server configurations.
local configs = require('lspconfig.configs')
local util = require('lspconfig.util')
local kast = require('kast')

if not configs.kast then
  configs.kast = {
    default_config = {
      cmd = { 'kast', 'lsp', '--stdio' },
      filetypes = kast.filetypes,
      root_dir = util.root_pattern(unpack(kast.root_markers)),
      handlers = kast.handlers,
    },
    docs = { description = 'kast: a fast multi-language language server (https://github.com/kast-dev/kast)' },
  }
end
return configs.kast
