-- Drives Neovim, headless, through one code action request to maxcode-lsp.
-- Neovim was started with the configuration of docs/Editors.md
-- (nvim-init.lua) on a C++ file; this waits for the server to be attached,
-- puts the cursor in a function, asks for code actions as
-- vim.lsp.buf.code_action() does, and writes each action's title, kind and
-- command to $MAXCODE_OUT.
local out = assert(io.open(os.getenv('MAXCODE_OUT'), 'w'))

local function finish(code)
  out:close()
  vim.cmd(code == 0 and 'qall!' or 'cquit! ' .. code)
end

local function client()
  for _, c in pairs(vim.lsp.buf_get_clients(0)) do
    if c.name == 'maxcode' then
      return c
    end
  end
end

local function run()
  vim.lsp.set_log_level('ERROR')
  local ready = vim.wait(20000, function()
    local c = client()
    return c ~= nil and c.initialized
  end, 50)
  if not ready then
    out:write('error: maxcode-lsp is not attached to ' .. vim.fn.expand('%') .. '\n')
    return finish(1)
  end

  -- Line 5 (1-based), in the loop of sumSquares.
  vim.api.nvim_win_set_cursor(0, { 5, 4 })
  local params = vim.lsp.util.make_range_params()
  params.context = { diagnostics = {} }
  local results, err =
    vim.lsp.buf_request_sync(0, 'textDocument/codeAction', params, 20000)
  if not results then
    out:write('error: ' .. tostring(err) .. '\n')
    return finish(1)
  end
  for _, response in pairs(results) do
    if response.err then
      out:write('error: ' .. vim.inspect(response.err) .. '\n')
    end
    for _, action in ipairs(response.result or {}) do
      local command = action.command or action
      local arg = command.arguments[1]
      out:write(action.title .. ' [' .. (action.kind or '') .. '] '
        .. command.command .. ' target=' .. arg.target .. ' uri=' .. arg.uri
        .. ' version=' .. arg.version .. '\n')
    end
  end
  local id = client().id
  vim.lsp.stop_client(id)
  vim.wait(5000, function() return vim.lsp.get_client_by_id(id) == nil end, 50)
  return finish(0)
end

-- Any Lua error ends Neovim with a failure instead of leaving it waiting.
local ok, message = pcall(run)
if not ok then
  out:write('error: ' .. tostring(message) .. '\n')
  finish(1)
end
