-- Neovim 0.11+: found on the runtimepath by vim.lsp.enable('kast').
return require('kast').config()
