-- small lsp for the .small/ files (Neovim 0.7 and later): one server per
-- workspace, attached to every .small/*.yml buffer opened in it.
local small_clients = {}
vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile" }, {
  pattern = "*/.small/*.yml",
  callback = function(args)
    local root = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(args.buf), ":p:h:h")
    local id = small_clients[root]
    if not id or vim.lsp.client_is_stopped(id) then
      id = vim.lsp.start_client({
        name = "small",
        cmd = { vim.g.small_binary or "small", "lsp", "--dir", root },
        root_dir = root,
      })
      small_clients[root] = id
    end
    if id then vim.lsp.buf_attach_client(args.buf, id) end
  end,
})
