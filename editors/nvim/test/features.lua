-- Headless Neovim check of kast through the plugin in this folder:
--   KAST_CMD='kast lsp --stdio' KAST_FILE=.../Use.kt KAST_LINE=2 KAST_COL=20 \
--     nvim --headless -u NONE -c 'set rtp^=editors/nvim' -c 'luafile editors/nvim/test/features.lua'
-- LINE and COL (0-based, UTF-16) point at a call. It asks for the definition,
-- the references of that definition, and renames it to KAST_NEW_NAME, letting
-- Neovim apply the edit. It prints DEF, REF and RENAMED lines, then OK, and
-- exits 1 (with FAIL: …) when a step gets nothing.
local function out(...) io.stdout:write(table.concat({ ... }, ' ') .. '\n') end
local function fail(msg) out('FAIL: ' .. msg); vim.cmd('cquit 1') end

local file = os.getenv('KAST_FILE')
local line, col = tonumber(os.getenv('KAST_LINE')), tonumber(os.getenv('KAST_COL'))
local new_name = os.getenv('KAST_NEW_NAME') or 'renamed'
if not file or not line or not col then fail('KAST_FILE, KAST_LINE and KAST_COL are required') end

vim.cmd('filetype on') -- -u NONE turns detection off; the filetype becomes the languageId
require('kast').setup({ cmd = vim.split(os.getenv('KAST_CMD') or 'kast lsp --stdio', ' ', { trimempty = true }) })
vim.cmd('edit ' .. vim.fn.fnameescape(file))
local bufnr = vim.api.nvim_get_current_buf()

local client
if not vim.wait(20000, function()
  client = vim.lsp.get_active_clients({ bufnr = bufnr })[1]
  return client ~= nil and client.initialized == true
end, 50) then
  fail('kast did not attach')
end

local function loc_string(loc)
  local uri = loc.uri or loc.targetUri
  local range = loc.range or loc.targetSelectionRange
  return ('%s:%d:%d'):format(vim.uri_to_fname(uri), range.start.line + 1, range.start.character + 1)
end

-- request retries while the server is still indexing the workspace.
local function request(method, params)
  local result
  vim.wait(20000, function()
    local res = vim.lsp.buf_request_sync(bufnr, method, params, 5000) or {}
    for _, r in pairs(res) do
      if r.err then fail(method .. ': ' .. vim.inspect(r.err)) end
      if r.result and (r.result.uri or r.result.targetUri or r.result.changes or r.result.documentChanges or #r.result > 0) then
        result = r.result
      end
    end
    return result ~= nil
  end, 200)
  return result
end

local at = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = { line = line, character = col } }
local defs = request('textDocument/definition', at)
if not defs then fail('no definition') end
if defs.uri or defs.targetUri then defs = { defs } end
for _, d in ipairs(defs) do out('DEF ' .. loc_string(d)) end

local decl = defs[1]
local decl_at = {
  textDocument = { uri = decl.uri or decl.targetUri },
  position = (decl.range or decl.targetSelectionRange).start,
  context = { includeDeclaration = false },
}
vim.fn.bufload(vim.fn.bufadd(vim.uri_to_fname(decl_at.textDocument.uri)))
local refs = request('textDocument/references', at)
if not refs then fail('no references') end
for _, r in ipairs(refs) do out('REF ' .. loc_string(r)) end

local edit = request('textDocument/rename', { textDocument = at.textDocument, position = at.position, newName = new_name })
if not edit then fail('no rename edit') end
vim.lsp.util.apply_workspace_edit(edit, client.offset_encoding or 'utf-16')
local edited = 0
for _, b in ipairs(vim.api.nvim_list_bufs()) do
  if vim.api.nvim_buf_is_loaded(b) and vim.api.nvim_buf_get_name(b) ~= '' then
    for i, text in ipairs(vim.api.nvim_buf_get_lines(b, 0, -1, false)) do
      local s = 1
      while true do
        local from = text:find(new_name, s, true)
        if not from then break end
        out(('RENAMED %s:%d:%d'):format(vim.api.nvim_buf_get_name(b), i, from))
        edited = edited + 1
        s = from + 1
      end
    end
  end
end
if edited == 0 then fail('the rename edit changed nothing') end
out('OK')
vim.lsp.stop_client(client.id)
vim.cmd('qall!')
