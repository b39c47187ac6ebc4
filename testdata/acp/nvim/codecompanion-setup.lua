-- Loads the README's CodeCompanion set-up block (SNIPPET_FILE: the fields
-- of the table given to require("codecompanion").setup) in headless Neovim
-- and writes the ACP adapter it configures to OUT_FILE as JSON.
-- CodeCompanion itself is not installed where the tests run: a stand-in
-- for its codecompanion.adapters module only records what extend() is
-- given and returns those options as the adapter, so this checks the
-- block's Lua and what it configures, not CodeCompanion's merge with its
-- built-in adapter. TestEditorSetups (cmd/kast) runs it.
local function finish(value)
  local f = assert(io.open(os.getenv("OUT_FILE"), "w"))
  f:write(vim.json.encode(value))
  f:close()
  vim.cmd("qall!")
end

local ok, err = pcall(function()
  local extended
  package.preload["codecompanion.adapters"] = function()
    return {
      extend = function(base, opts)
        extended = { base = base, opts = opts }
        return opts
      end,
    }
  end
  local f = assert(io.open(os.getenv("SNIPPET_FILE")))
  local src = f:read("*a")
  f:close()
  local cfg = assert(loadstring("return {\n" .. src .. "\n}", "=README codecompanion block"))()
  local name = cfg.interactions.chat.adapter
  local factory = cfg.adapters.acp[name]
  assert(type(factory) == "function", "adapters.acp." .. tostring(name) .. " is not a function")
  local adapter = factory()
  assert(extended, "the adapter does not extend a built-in one")
  local cmd = adapter.commands.default
  finish({
    base = extended.base,
    name = adapter.name,
    command = cmd[1],
    args = { unpack(cmd, 2) },
    authMethod = adapter.defaults and adapter.defaults.auth_method or vim.NIL,
  })
end)
if not ok then
  finish({ error = tostring(err) })
end
