-- :checkhealth kast — is kast found, which version, the current buffer's
-- root, whether a client is attached, and what its index says (kast.status).
-- Works with Neovim 0.7 (require('health').report_*) to 0.10+ (vim.health.*).
local M = {}

local function reporter()
  local h = vim.health or require('health')
  return {
    start = h.start or h.report_start,
    ok = h.ok or h.report_ok,
    warn = h.warn or h.report_warn,
    error = h.error or h.report_error,
    info = h.info or h.report_info,
  }
end

function M.check()
  local r = reporter()
  local kast = require('kast')
  r.start('kast')
  local cmd = kast.options and kast.options.cmd or kast.config().cmd
  if vim.fn.executable(cmd[1]) ~= 1 then
    r.error(('%s is not executable: run `make install` in the kast repository (it installs into $(go env GOPATH)/bin, which must be on PATH), or pass cmd to setup()'):format(cmd[1]))
    return
  end
  local version = vim.fn.system({ cmd[1], 'version' })
  if vim.v.shell_error ~= 0 then
    r.error(('`%s version` failed: %s'):format(cmd[1], version))
    return
  end
  r.ok(('%s: %s'):format(vim.fn.exepath(cmd[1]), vim.trim(version)))
  r.info('languages: ' .. table.concat(kast.filetypes, ', '))

  local bufnr = vim.api.nvim_get_current_buf()
  local client
  for _, c in pairs(vim.lsp.get_active_clients()) do
    if c.name == 'kast' then client = client or c end
  end
  if not client then
    r.warn('no kast client is running: open a file of one of the languages above in a project')
    return
  end
  r.ok(('client %d attached, root %s'):format(client.id, client.config.root_dir or '?'))
  local res = client.request_sync('workspace/executeCommand', { command = 'kast.status' }, 5000, bufnr)
  if not res or res.err or not res.result then
    r.warn('kast.status did not answer: ' .. vim.inspect(res and res.err or 'timeout'))
    return
  end
  for _, root in ipairs(res.result.roots or {}) do
    r.ok(('index of %s: references %s'):format(root.path, root.references or '?'))
    if root.notice and root.notice ~= '' then r.warn(root.notice) end
  end
end

return M
