#pragma once
/// Prints IR in dsl's readable syntax. `operator<<` on Expr, Stmt and Type uses this.

#include <ostream>
#include <string>
#include <vector>

#include "ir/IRVisitor.h"
#include "ir/Module.h"

namespace dsl::ir {

/// Renders an Expr or Stmt as text.
std::string to_string(const Expr &e);
std::string to_string(const Stmt &s);
/// The host function's body of a lowered module, then each GPU kernel it launches:
///   kernel name(buffer in (read), int32 in.min.0, ...) { body }
std::string module_text(const Module &m);
/// A call as the user would write it, e.g. "f(x, (y + 1))", for error messages.
std::string call_text(const std::string &func, const std::vector<Expr> &args);

class IRPrinter : public IRVisitor {
  public:
    explicit IRPrinter(std::ostream &os) : os_(os) {}
    void print(const Expr &e) { include(e); }
    void print(const Stmt &s) { include(s); }

  protected:
#define DSL_DECLARE_VISIT(T) void visit(const T *op) override;
    DSL_FOR_EACH_EXPR_NODE(DSL_DECLARE_VISIT)
    DSL_FOR_EACH_STMT_NODE(DSL_DECLARE_VISIT)
#undef DSL_DECLARE_VISIT

  private:
    void print_binary(const Expr &a, const char *op, const Expr &b);
    void print_args(const std::vector<Expr> &args);
    void print_block(const Stmt &body);
    void indent();

    std::ostream &os_;
    int indent_ = 0;
};

}  // namespace dsl::ir
