-- Neovim's built-in LSP client (0.7 API: vim.lsp.start_client + buf_attach_client) drives
-- `firstfault lsp` on a copy of a corpus log and checks the diagnostics, the hover and the
-- quick fix it receives. Run: FIRSTFAULT=... FF_ROOT=... nvim --headless -u NONE -c "luafile nvim_client.lua"
local ff = os.getenv("FIRSTFAULT")
local root = os.getenv("FF_ROOT")
local passed, failed = 0, 0
local function check(name, ok, detail)
  if ok then
    passed = passed + 1
    io.stdout:write("PASS " .. name .. "\n")
  else
    failed = failed + 1
    io.stdout:write("FAIL " .. name .. (detail and (": " .. detail) or "") .. "\n")
  end
end

local function main()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  local log = dir .. "/train.log"
  vim.fn.writefile(vim.fn.readfile(root .. "/tests/corpus/funasr-2006/log.txt", "b"), log, "b")

  local client_id = vim.lsp.start_client({
    name = "firstfault",
    cmd = { ff, "lsp", "--docs", root .. "/docs" },
    root_dir = dir,
  })
  check("start_client", client_id ~= nil)
  vim.cmd("edit " .. log)
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].filetype = "log"
  vim.lsp.buf_attach_client(buf, client_id)
  local client = vim.lsp.get_client_by_id(client_id)
  vim.wait(10000, function() return client.initialized end, 20)
  check("initialized", client.initialized)

  -- Diagnostics pushed by the server.
  vim.wait(10000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
  local diags = vim.diagnostic.get(buf)
  local root_diag
  for _, d in ipairs(diags) do
    if d.severity == vim.diagnostic.severity.ERROR then root_diag = d end
  end
  check("diagnostics received", #diags >= 2, tostring(#diags))
  check("root cause is an error on line 1", root_diag ~= nil and root_diag.lnum == 0,
    root_diag and vim.inspect(root_diag) or "none")
  check("root cause message", root_diag ~= nil and root_diag.message:find("Root cause %(rank 2%)") ~= nil,
    root_diag and root_diag.message)
  check("source firstfault", root_diag ~= nil and root_diag.source == "firstfault")
  local info = 0
  for _, d in ipairs(diags) do
    if d.severity == vim.diagnostic.severity.INFO then info = info + 1 end
  end
  check("collateral as information", info >= 1, tostring(info))

  -- Hover on the flagged line.
  local pos = { textDocument = vim.lsp.util.make_text_document_params(buf), position = { line = 0, character = 20 } }
  local res = client.request_sync("textDocument/hover", pos, 5000, buf)
  local value = res and res.result and res.result.contents and res.result.contents.value or ""
  check("hover explains the rule", value:find("CUDA out of memory on one rank", 1, true) ~= nil, value:sub(1, 200))
  check("hover shows the fix", value:find("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True", 1, true) ~= nil)

  -- Quick fix: the preferred action (its edit comes with it), applied by Neovim itself.
  local params = {
    textDocument = vim.lsp.util.make_text_document_params(buf),
    range = { start = { line = 0, character = 0 }, ["end"] = { line = 0, character = 1 } },
    context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(buf, 0) },
  }
  res = client.request_sync("textDocument/codeAction", params, 5000, buf)
  local action
  for _, a in ipairs(res and res.result or {}) do
    if a.isPreferred then action = a end
  end
  check("preferred quick fix offered", action ~= nil, res and vim.inspect(res.result):sub(1, 300))
  check("quick fix has an edit", action ~= nil and action.edit ~= nil)
  if action and action.edit then
    vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
    local script = dir .. "/firstfault-fix-cuda-out-of-memory.sh"
    local fbuf = vim.fn.bufnr(script)
    local lines = fbuf > 0 and vim.api.nvim_buf_get_lines(fbuf, 0, -1, false) or {}
    local text = table.concat(lines, "\n")
    check("fix script written", text:find("export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True", 1, true) ~= nil,
      text:sub(1, 200))
  end

  -- Code lens.
  res = client.request_sync("textDocument/codeLens", { textDocument = vim.lsp.util.make_text_document_params(buf) }, 5000, buf)
  local lens = res and res.result and res.result[1]
  check("code lens with verification", lens ~= nil and lens.command.command == "firstfault.runVerification")

  client.stop()
  vim.wait(3000, function() return client.is_stopped() end, 20)
  check("client stopped", client.is_stopped())
end

local ok, err = pcall(main)
if not ok then check("lua error", false, tostring(err)) end
io.stdout:write(string.format("%d passed, %d failed\n", passed, failed))
if failed > 0 then vim.cmd("cquit 1") else vim.cmd("qa!") end
