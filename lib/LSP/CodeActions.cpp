//===-- CodeActions.cpp - Targets and the actions offered -----------------===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A document's targets, listed once per version from the compile database,
// and the maxcode.optimize action offered at each (DESIGN section 8).
//
//===----------------------------------------------------------------------===//

#include "ServerImpl.h"

using namespace maxcode;
using namespace maxcode::lsp;
using namespace maxcode::lsp::impl;

Server::Impl::Database Server::Impl::loadDatabase(llvm::StringRef Path) {
  Database D;
  auto Loaded =
      loadCompilationDatabase(DatabasePath.value_or(""), nullptr, {Path.str()});
  if (Loaded) {
    D.DB = std::move(*Loaded);
    D.BuildPath = DatabasePath
                      ? *DatabasePath
                      : std::string(llvm::sys::path::parent_path(D.DB.Origin));
    return D;
  }
  // As clangd: without a database a file is still parsed, with the default
  // command for its language.
  Logger::info("using the default command for {0}: {1}", Path,
               llvm::toString(Loaded.takeError()));
  auto Fixed = std::make_unique<clang::tooling::FixedCompilationDatabase>(
      llvm::sys::path::parent_path(Path), std::vector<std::string>());
  D.DB.Raw = Fixed.get();
  D.DB.Database = std::move(Fixed);
  D.DB.Origin = "the default command";
  if (DatabasePath)
    D.BuildPath = *DatabasePath; // Let clang-maxcode say what is wrong.
  return D;
}

const Document *Server::Impl::updateTargets(const std::string &URI) {
  // Only this thread changes documents, so the copy stays current while
  // Clang parses without the lock.
  std::string Path, Text;
  int64_t Version;
  {
    std::lock_guard<std::mutex> Lock(Mu);
    auto It = Documents.find(URI);
    if (It == Documents.end())
      return nullptr;
    if (It->second.TargetsVersion == It->second.Version)
      return &It->second;
    Path = It->second.Path;
    Text = It->second.Text;
    Version = It->second.Version;
  }
  std::vector<Target> Targets;
  std::string Error;
  if (Path.empty()) {
    Error = "the URI names no local file";
  } else {
    Database D = loadDatabase(Path);
    ResolvedCommand RC = resolveCompileCommand(D.DB, Path);
    if (!RC.Fallback.empty())
      Logger::debug("{0} is not in {1}; using {2}", Path, D.DB.Origin,
                    RC.Fallback);
    std::string Diags;
    llvm::raw_string_ostream DiagOS(Diags);
    auto Parsed = parseTargets(RC.Command, Path, Opts.Parse, DiagOS,
                               llvm::StringRef(Text), ParseErrors::Fail);
    if (Parsed) {
      Targets = std::move(Parsed->Targets);
    } else {
      Error = llvm::toString(Parsed.takeError());
      Logger::info("no targets in {0}: {1}", Path, Error);
    }
    if (!Diags.empty())
      Logger::debug("{0}", Diags);
  }
  std::lock_guard<std::mutex> Lock(Mu);
  Document &Doc = Documents[URI];
  Doc.TargetsVersion = Version;
  Doc.Targets = std::move(Targets);
  Doc.TargetsError = std::move(Error);
  return &Doc;
}

void Server::Impl::onCodeAction(const llvm::lsp::CodeActionParams &Params,
                                Callback<json::Value> Reply) {
  std::string URI = Params.textDocument.uri.uri().str();
  json::Array Actions;
  if (!wantsRewrite(Params.context.only))
    return Reply(std::move(Actions));
  const Document *Doc = updateTargets(URI);
  if (!Doc) {
    Logger::info("codeAction for {0}, which is not open", URI);
    return Reply(std::move(Actions));
  }
  std::lock_guard<std::mutex> Lock(Mu);
  auto [First, Last] = selectedLines(Params.range);
  for (size_t I : targetsOnLines(Doc->Targets, First, Last)) {
    const Target &T = Doc->Targets[I];
    std::string Title = "MaxCode: optimise " + quoteName(T.Name);
    // LLVM's CodeAction has no command: the action and the command are
    // LSP's, written here.
    json::Object Command{
        {"title", Title},
        {"command", OptimizeCommand},
        {"arguments",
         json::Array{json::Object{
             {"uri", URI}, {"target", T.Name}, {"version", Doc->Version}}}}};
    if (ClientCodeActionLiterals)
      Actions.push_back(json::Object{{"title", Title},
                                     {"kind", RewriteKind},
                                     {"command", std::move(Command)}});
    else
      Actions.push_back(std::move(Command));
  }
  Reply(std::move(Actions));
}
