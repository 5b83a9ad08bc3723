// Placeholder until the language server lands.
namespace ff::lsp {}
