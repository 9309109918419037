#pragma once
/// A prefix serialisation of the IR for cache keys: each node is a tag followed by its fields in a
/// fixed order, each string is written as its length, ';' and its bytes, each number ends with
/// ';', and a missing Expr or Stmt is '_'. A reader could rebuild the tree from the text, which is
/// what makes a key unambiguous. Subclasses add what their key needs beyond the nodes (the Funcs,
/// Params and buffers that nodes refer to: lang/DefinitionKey.h).

#include <charconv>
#include <cstring>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "ir/IRVisitor.h"

namespace dsl::jit {

class KeyWriter : public ir::IRVisitor {
  public:
    explicit KeyWriter(std::string &out) : out_(out) {}

    void include(const Expr &e) override {
        if (!e.defined()) {
            out_ += '_';
            return;
        }
        ir::IRVisitor::include(e);
    }
    void include(const ir::Stmt &s) override {
        if (!s.defined()) {
            out_ += '_';
            return;
        }
        ir::IRVisitor::include(s);
    }

    template <typename Integer>
    void number(Integer v) {
        char digits[24];
        out_.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
        out_ += ';';
    }
    void text(const std::string &s) {
        number(static_cast<int64_t>(s.size()));
        out_ += s;
    }
    /// The name of a Func, buffer, parameter, variable or loop: written as it is, unless a
    /// subclass writes names in a form of its own.
    virtual void name(const std::string &s) { text(s); }
    /// e.g. "i32;" or "f32x8;": the code's letter, the bits, the lanes when more than one.
    void type(const Type &t) {
        switch (t.code()) {
            case TypeCode::Int:
                out_ += 'i';
                break;
            case TypeCode::UInt:
                out_ += 'u';
                break;
            case TypeCode::Float:
                out_ += 'f';
                break;
            case TypeCode::BFloat:
                out_ += 'b';
                break;
            case TypeCode::Handle:
                out_ += 'h';
                break;
        }
        char digits[24];
        out_.append(digits, std::to_chars(digits, digits + sizeof digits, t.bits()).ptr);
        if (t.lanes() != 1) {
            out_ += 'x';
            out_.append(digits, std::to_chars(digits, digits + sizeof digits, t.lanes()).ptr);
        }
        out_ += ';';
    }
    void exprs(const std::vector<Expr> &v) {
        number(static_cast<int64_t>(v.size()));
        for (const Expr &e : v)
            include(e);
    }
    /// The tag and type every expression node starts with.
    void start(const char *tag, const Type &t) {
        out_ += tag;
        type(t);
    }

  protected:
    void visit(const ir::IntImm *op) override {
        start("i", op->type);
        number(op->value);
    }
    void visit(const ir::UIntImm *op) override {
        start("u", op->type);
        number(op->value);
    }
    void visit(const ir::FloatImm *op) override {
        // The bits, so that -0.0 and every NaN are kept apart.
        uint64_t bits;
        std::memcpy(&bits, &op->value, sizeof bits);
        start("f", op->type);
        number(bits);
    }
    void visit(const ir::StringImm *op) override {
        start("s", op->type);
        text(op->value);
    }
    void visit(const ir::Cast *op) override {
        start("cast", op->type);
        include(op->value);
    }
    void visit(const ir::Variable *op) override {
        start("v", op->type);
        name(op->name);
    }

#define DSL_KEY_BINARY(T, tag)             \
    void visit(const ir::T *op) override { \
        start(tag, op->type);              \
        include(op->a);                    \
        include(op->b);                    \
    }
    DSL_KEY_BINARY(Add, "+")
    DSL_KEY_BINARY(Sub, "-")
    DSL_KEY_BINARY(Mul, "*")
    DSL_KEY_BINARY(Div, "/")
    DSL_KEY_BINARY(Mod, "%")
    DSL_KEY_BINARY(Min, "min")
    DSL_KEY_BINARY(Max, "max")
    DSL_KEY_BINARY(EQ, "==")
    DSL_KEY_BINARY(NE, "!=")
    DSL_KEY_BINARY(LT, "<")
    DSL_KEY_BINARY(LE, "<=")
    DSL_KEY_BINARY(GT, ">")
    DSL_KEY_BINARY(GE, ">=")
    DSL_KEY_BINARY(And, "&&")
    DSL_KEY_BINARY(Or, "||")
#undef DSL_KEY_BINARY

    void visit(const ir::Not *op) override {
        start("!", op->type);
        include(op->a);
    }
    void visit(const ir::Select *op) override {
        start("select", op->type);
        include(op->condition);
        include(op->true_value);
        include(op->false_value);
    }
    void visit(const ir::Load *op) override {
        start("load", op->type);
        name(op->name);
        include(op->index);
        include(op->predicate);
        number(op->alignment.modulus);
        number(op->alignment.remainder);
    }
    void visit(const ir::Ramp *op) override {
        start("ramp", op->type);
        include(op->base);
        include(op->stride);
        number(op->lanes);
    }
    void visit(const ir::Broadcast *op) override {
        start("broadcast", op->type);
        include(op->value);
        number(op->lanes);
    }
    void visit(const ir::Call *op) override {
        start("call", op->type);
        // A C function's or an intrinsic's name is what it calls, not a name of the pipeline's.
        const bool named =
            op->call_type == ir::Call::CallType::Func || op->call_type == ir::Call::CallType::Image;
        named ? name(op->name) : text(op->name);
        number(static_cast<int>(op->call_type));
        number(static_cast<int>(op->intrinsic));
        number(op->value_index);
        exprs(op->args);
    }
    void visit(const ir::Let *op) override {
        start("let", op->type);
        name(op->name);
        include(op->value);
        include(op->body);
    }
    void visit(const ir::Shuffle *op) override {
        start("shuffle", op->type);
        exprs(op->vectors);
        number(static_cast<int64_t>(op->indices.size()));
        for (int i : op->indices)
            number(i);
    }
    void visit(const ir::VectorReduce *op) override {
        start("reduce", op->type);
        number(static_cast<int>(op->op));
        include(op->value);
    }

    void visit(const ir::LetStmt *op) override {
        out_ += "LET";
        name(op->name);
        include(op->value);
        include(op->body);
    }
    void visit(const ir::AssertStmt *op) override {
        out_ += "ASSERT";
        include(op->condition);
        include(op->message);
    }
    void visit(const ir::ProducerConsumer *op) override {
        out_ += op->is_producer ? "PRODUCE" : "CONSUME";
        name(op->name);
        include(op->body);
    }
    void visit(const ir::For *op) override {
        out_ += "FOR";
        name(op->name);
        include(op->min);
        include(op->extent);
        number(static_cast<int>(op->for_type));
        number(static_cast<int>(op->device_api));
        include(op->body);
    }
    void visit(const ir::Store *op) override {
        out_ += "STORE";
        name(op->name);
        include(op->value);
        include(op->index);
        include(op->predicate);
        number(op->alignment.modulus);
        number(op->alignment.remainder);
    }
    void visit(const ir::Provide *op) override {
        out_ += "PROVIDE";
        name(op->name);
        exprs(op->values);
        exprs(op->args);
        include(op->predicate);
    }
    void visit(const ir::Allocate *op) override {
        out_ += "ALLOCATE";
        name(op->name);
        type(op->type);
        number(static_cast<int>(op->memory_type));
        exprs(op->extents);
        include(op->condition);
        include(op->body);
    }
    void visit(const ir::Free *op) override {
        out_ += "FREE";
        name(op->name);
    }
    void visit(const ir::Realize *op) override {
        out_ += "REALIZE";
        name(op->name);
        number(static_cast<int64_t>(op->types.size()));
        for (const Type &t : op->types)
            type(t);
        number(static_cast<int>(op->memory_type));
        number(static_cast<int64_t>(op->bounds.size()));
        for (const ir::Range &r : op->bounds) {
            include(r.min);
            include(r.extent);
        }
        include(op->condition);
        include(op->body);
    }
    void visit(const ir::Block *op) override {
        out_ += "BLOCK";
        include(op->first);
        include(op->rest);
    }
    void visit(const ir::IfThenElse *op) override {
        out_ += "IF";
        include(op->condition);
        include(op->then_case);
        include(op->else_case);
    }
    void visit(const ir::Evaluate *op) override {
        out_ += "EVALUATE";
        include(op->value);
    }
    void visit(const ir::Atomic *op) override {
        out_ += "ATOMIC";
        name(op->name);
        include(op->body);
    }

  protected:
    std::string &out_;
};

}  // namespace dsl::jit
