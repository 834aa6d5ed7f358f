-- The Neovim configuration of docs/Editors.md, with the server's path taken
-- from $MAXCODE_LSP: maxcode-lsp for C, C++ and CUDA buffers, beside clangd.
local maxcode = {
  name = 'maxcode',
  cmd = { os.getenv('MAXCODE_LSP') },
  init_options = { policy = 'rules', budget = 20 },
}
local maxcode_client -- Neovim 0.7: one client, attached to each buffer.
vim.api.nvim_create_autocmd('FileType', {
  pattern = { 'c', 'cpp', 'cuda' },
  callback = function(args)
    local config = vim.tbl_extend('force', maxcode, { root_dir = vim.fn.getcwd() })
    if vim.lsp.start then -- Neovim 0.8 and newer
      vim.lsp.start(config, { bufnr = args.buf })
    else -- Neovim 0.7 (Debian 12)
      maxcode_client = maxcode_client or vim.lsp.start_client(config)
      vim.lsp.buf_attach_client(args.buf, maxcode_client)
    end
  end,
})
