-- Headless Neovim asks kast for one definition through the plugin:
--   KAST_CMD='kast lsp --stdio' KAST_FILE=... KAST_LINE=0 KAST_COL=0 \
--     nvim --headless -u NONE -c 'set rtp^=editors/nvim' -c 'luafile editors/nvim/test/definition.lua'
-- Prints DEF path:line:col (1-based) for each location, then OK; exits 1
-- (FAIL: …) when none comes back. Used for targets outside the workspace,
-- such as the Go standard library, which nothing may rename.
local function out(...) io.stdout:write(table.concat({ ... }, ' ') .. '\n') end
local function fail(msg) out('FAIL: ' .. msg); vim.cmd('cquit 1') end

local file = os.getenv('KAST_FILE')
local line, col = tonumber(os.getenv('KAST_LINE')), tonumber(os.getenv('KAST_COL'))
if not file or not line or not col then fail('KAST_FILE, KAST_LINE and KAST_COL are required') end

vim.cmd('filetype on')
require('kast').setup({ cmd = vim.split(os.getenv('KAST_CMD') or 'kast lsp --stdio', ' ', { trimempty = true }) })
vim.cmd('edit ' .. vim.fn.fnameescape(file))
local bufnr = vim.api.nvim_get_current_buf()

if not vim.wait(20000, function()
  local c = vim.lsp.get_active_clients({ bufnr = bufnr })[1]
  return c ~= nil and c.initialized == true
end, 50) then
  fail('kast did not attach')
end

local at = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = { line = line, character = col } }
local defs
vim.wait(60000, function()
  for _, r in pairs(vim.lsp.buf_request_sync(bufnr, 'textDocument/definition', at, 5000) or {}) do
    if r.err then fail('definition: ' .. vim.inspect(r.err)) end
    if r.result and (r.result.uri or r.result.targetUri or #r.result > 0) then defs = r.result end
  end
  return defs ~= nil
end, 200)
if not defs then fail('no definition') end
if defs.uri or defs.targetUri then defs = { defs } end
for _, d in ipairs(defs) do
  local range = d.range or d.targetSelectionRange
  out(('DEF %s:%d:%d'):format(vim.uri_to_fname(d.uri or d.targetUri), range.start.line + 1, range.start.character + 1))
end
out('OK')
vim.cmd('qall!')
