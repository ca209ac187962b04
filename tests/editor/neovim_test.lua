-- Drives a real Neovim against `small lsp` (run by neovim_test.sh after
-- small_lsp.lua, the configuration docs/editors.md shows): an unsaved edit
-- breaks the plan and its diagnostic appears, hover, definition and
-- completion answer on a dependency, the quick fix repairs the buffer and
-- the diagnostic goes. Any failure exits non-zero.
local plan = os.getenv("SMALL_PLAN")
local screen = os.getenv("SMALL_SCREEN")

local function fail(what)
  io.stderr:write("FAIL: " .. what .. "\n")
  vim.cmd("cquit 1")
end

local function wait_for(what, ms, cond)
  if not vim.wait(ms, cond, 20) then fail("timed out waiting for " .. what) end
end

local function line_of(pattern)
  for n, text in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
    if text:find(pattern, 1, true) then return n - 1, text end
  end
  fail("no line with " .. pattern)
end

local function small_codes()
  local codes = {}
  for _, d in ipairs(vim.diagnostic.get(0)) do
    local lsp = d.user_data and d.user_data.lsp or {}
    table.insert(codes, (d.code or lsp.code or "?") .. "@" .. d.lnum)
  end
  table.sort(codes)
  return table.concat(codes, ",")
end

local function request(method, params)
  local answers = vim.lsp.buf_request_sync(0, method, params, 5000)
  if not answers then fail(method .. " got no answer") end
  for _, answer in pairs(answers) do
    if answer.err then fail(method .. ": " .. vim.inspect(answer.err)) end
    return answer.result
  end
  fail(method .. " got no answer")
end

local function at(line, character)
  return { textDocument = { uri = vim.uri_from_bufnr(0) }, position = { line = line, character = character } }
end

local ok, err = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(plan))
  wait_for("the client to attach", 5000, function() return #vim.lsp.buf_get_clients(0) > 0 end)

  -- An unsaved edit: task-2's status typed wrong.
  local status_line, status_text = line_of('status: "pending"')
  vim.api.nvim_buf_set_lines(0, status_line, status_line + 1, false, { (status_text:gsub("pending", "pendng")) })
  wait_for("the INV-P8 diagnostic", 10000, function() return small_codes() == "INV-P8@" .. status_line end)
  local diagnostic = vim.diagnostic.get(0)[1]
  if diagnostic.col ~= status_text:find('"', 1, true) - 1 then fail("diagnostic column " .. diagnostic.col) end
  if screen then
    local shown = {}
    for n, text in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
      table.insert(shown, string.format("%3d  %s", n, text))
      for _, d in ipairs(vim.diagnostic.get(0, { lnum = n - 1 })) do
        local lsp = d.user_data and d.user_data.lsp or {}
        local first = d.message:match("^[^\n]*")
        table.insert(shown, string.format("     %s^ %s [%s]", string.rep(" ", d.col),
          first, d.code or lsp.code or "?"))
      end
    end
    local f = io.open(screen, "w")
    f:write(table.concat(shown, "\n") .. "\n")
    f:close()
  end

  -- Hover on the dependency names the task, its status and its evidence.
  local dep_line, dep_text = line_of('- "task-1"')
  local dep_col = dep_text:find("task-1", 1, true)
  local hover = request("textDocument/hover", at(dep_line, dep_col))
  if not (hover and hover.contents.value:find("task-1: Parse the flags", 1, true)) then
    fail("hover: " .. vim.inspect(hover))
  end
  if not hover.contents.value:find("unit tests pass", 1, true) then fail("hover has no evidence: " .. hover.contents.value) end

  -- Definition: the editor jumps to task-1 in the plan.
  local id_line = line_of('id: "task-1"')
  vim.api.nvim_win_set_cursor(0, { dep_line + 1, dep_col })
  vim.lsp.buf.definition()
  wait_for("the jump to task-1", 5000, function() return vim.api.nvim_win_get_cursor(0)[1] == id_line + 1 end)

  -- Completion in a depends_on item offers the task ids.
  local items = request("textDocument/completion", at(dep_line, dep_col + 2))
  local labels = {}
  for _, item in ipairs(items.items or items) do labels[item.label] = true end
  if not (labels["task-1"] and labels["task-2"]) then fail("completion: " .. vim.inspect(items)) end

  -- The quick fix repairs the unsaved buffer and the diagnostic goes.
  local actions = request("textDocument/codeAction", {
    textDocument = { uri = vim.uri_from_bufnr(0) },
    range = { start = { line = status_line, character = 0 }, ["end"] = { line = status_line, character = 0 } },
    context = { diagnostics = {} },
  })
  if not (actions and actions[1] and actions[1].edit) then fail("no quick fix: " .. vim.inspect(actions)) end
  vim.lsp.util.apply_workspace_edit(actions[1].edit, "utf-16")
  local fixed = vim.api.nvim_buf_get_lines(0, status_line, status_line + 1, false)[1]
  if fixed ~= status_text then fail("the fix wrote " .. fixed) end
  wait_for("the diagnostics to clear", 10000, function() return small_codes() == "" end)
  if vim.bo.modified ~= true then fail("the buffer should still be unsaved") end
end)
if not ok then fail(tostring(err)) end
vim.cmd("qall!")
