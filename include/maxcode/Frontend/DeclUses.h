//===-- maxcode/Frontend/DeclUses.h - Declarations code names ---*- C++ -*-===//
//
// Part of clang-maxcode, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The one visitor for "which declarations does this code use": what it
/// calls, constructs, reads and writes, and the types it spells. Discovery
/// uses it to refuse a target whose code depends on a declaration with an
/// error; the LLM's context uses it to show the declarations a target needs.
///
//===----------------------------------------------------------------------===//

#ifndef MAXCODE_FRONTEND_DECLUSES_H
#define MAXCODE_FRONTEND_DECLUSES_H

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include <functional>

namespace maxcode {

/// Calls the callback with each declaration the traversed code names (null
/// never), templates as written rather than their instantiations. What to
/// keep of them (the definition, the enclosing class, the main file only)
/// is the caller's.
class DeclUseVisitor : public clang::RecursiveASTVisitor<DeclUseVisitor> {
public:
  explicit DeclUseVisitor(std::function<void(const clang::Decl *)> Use)
      : Use(std::move(Use)) {}

  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitImplicitCode() const { return true; }

  bool VisitDeclRefExpr(clang::DeclRefExpr *E) { return add(E->getDecl()); }
  bool VisitMemberExpr(clang::MemberExpr *E) { return add(E->getMemberDecl()); }
  bool VisitOverloadExpr(clang::OverloadExpr *E) {
    for (const clang::NamedDecl *D : E->decls())
      add(D);
    return true;
  }
  bool VisitCallExpr(clang::CallExpr *E) { return add(E->getCalleeDecl()); }
  bool VisitCXXConstructExpr(clang::CXXConstructExpr *E) {
    return add(E->getConstructor());
  }
  bool VisitTagTypeLoc(clang::TagTypeLoc TL) { return add(TL.getDecl()); }
  bool VisitTypedefTypeLoc(clang::TypedefTypeLoc TL) {
    return add(TL.getDecl());
  }
  bool
  VisitTemplateSpecializationTypeLoc(clang::TemplateSpecializationTypeLoc TL) {
    add(TL.getTypePtr()->getTemplateName().getAsTemplateDecl());
    if (const clang::CXXRecordDecl *RD = TL.getType()->getAsCXXRecordDecl())
      add(RD);
    return true;
  }

private:
  bool add(const clang::Decl *D) {
    if (D)
      Use(D);
    return true;
  }

  std::function<void(const clang::Decl *)> Use;
};

} // namespace maxcode

#endif // MAXCODE_FRONTEND_DECLUSES_H
