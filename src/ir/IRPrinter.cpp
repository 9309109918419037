#include "ir/IRPrinter.h"

#include "ir/IROperator.h"

#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

namespace dsl {

std::ostream &operator<<(std::ostream &os, const Expr &e) {
    if (!e.defined()) return os << "(undefined)";
    ir::IRPrinter(os).print(e);
    return os;
}

namespace ir {

std::ostream &operator<<(std::ostream &os, const Stmt &s) {
    if (!s.defined()) return os << "(undefined)\n";
    IRPrinter(os).print(s);
    return os;
}

std::string to_string(const Expr &e) {
    std::ostringstream ss;
    ss << e;
    return ss.str();
}

std::string to_string(const Stmt &s) {
    std::ostringstream ss;
    ss << s;
    return ss.str();
}

std::string module_text(const Module &m) {
    std::ostringstream ss;
    for (const LoweredFunc &f : m.functions)
        ss << f.body;
    for (const GPUKernel &k : m.kernels) {
        ss << "\nkernel " << k.name << "(";
        for (size_t i = 0; i < k.args.size(); i++) {
            const KernelArgument &a = k.args[i];
            ss << (i ? ", " : "") << (a.is_buffer ? "buffer " : "") << a.type << " " << a.name;
            if (a.is_buffer) {
                ss << (a.read && a.written ? " (read, written)"
                       : a.written         ? " (written)"
                                           : " (read)");
            }
        }
        for (size_t i = 0; i < k.dynamic_shared.size(); i++) {
            const DynamicSharedAllocation &d = k.dynamic_shared[i];
            ss << (i || !k.args.empty() ? ", " : "") << "shared " << d.type << " " << d.name << " ("
               << d.bytes << " bytes, sized at the launch)";
        }
        ss << ") on " << to_string(k.api) << " {\n" << k.body << "}\n";
    }
    return ss.str();
}

namespace {

void print_double(std::ostream &os, double v, int bits) {
    if (std::isnan(v)) {
        os << "nan";
    } else if (std::isinf(v)) {
        os << (v > 0 ? "inf" : "-inf");
    } else {
        std::ostringstream ss;
        ss << std::setprecision(bits == 64 ? 17 : 9) << v;
        std::string s = ss.str();
        // Keep a float recognisable as one: "1" prints as "1.0".
        if (s.find_first_of(".eE") == std::string::npos) s += ".0";
        os << s;
    }
}

}  // namespace

void IRPrinter::indent() {
    for (int i = 0; i < indent_; i++)
        os_ << ' ';
}

void IRPrinter::print_binary(const Expr &a, const char *op, const Expr &b) {
    os_ << '(';
    include(a);
    os_ << ' ' << op << ' ';
    include(b);
    os_ << ')';
}

void IRPrinter::print_args(const std::vector<Expr> &args) {
    for (size_t i = 0; i < args.size(); i++) {
        if (i) os_ << ", ";
        include(args[i]);
    }
}

void IRPrinter::print_block(const Stmt &body) {
    os_ << " {\n";
    indent_ += 2;
    include(body);
    indent_ -= 2;
    indent();
    os_ << "}\n";
}

void IRPrinter::visit(const IntImm *op) {
    if (op->type == Int(32)) {
        os_ << op->value;
    } else {
        os_ << op->type << '(' << op->value << ')';
    }
}

void IRPrinter::visit(const UIntImm *op) {
    if (op->type.is_bool()) {
        os_ << (op->value ? "true" : "false");
    } else {
        os_ << op->type << '(' << op->value << ')';
    }
}

void IRPrinter::visit(const FloatImm *op) {
    if (op->type == Float(32)) {
        print_double(os_, op->value, 32);
        os_ << 'f';
    } else if (op->type == Float(64)) {
        print_double(os_, op->value, 64);
    } else {
        os_ << op->type << '(';
        print_double(os_, op->value, 32);
        os_ << ')';
    }
}

void IRPrinter::visit(const StringImm *op) {
    os_ << '"';
    for (char c : op->value) {
        switch (c) {
            case '"':
                os_ << "\\\"";
                break;
            case '\\':
                os_ << "\\\\";
                break;
            case '\n':
                os_ << "\\n";
                break;
            case '\t':
                os_ << "\\t";
                break;
            default:
                os_ << c;
        }
    }
    os_ << '"';
}

void IRPrinter::visit(const Cast *op) {
    os_ << op->type << '(';
    include(op->value);
    os_ << ')';
}

void IRPrinter::visit(const Variable *op) {
    os_ << op->name;
}
void IRPrinter::visit(const Add *op) {
    print_binary(op->a, "+", op->b);
}
void IRPrinter::visit(const Sub *op) {
    print_binary(op->a, "-", op->b);
}
void IRPrinter::visit(const Mul *op) {
    print_binary(op->a, "*", op->b);
}
void IRPrinter::visit(const Div *op) {
    print_binary(op->a, "/", op->b);
}
void IRPrinter::visit(const Mod *op) {
    print_binary(op->a, "%", op->b);
}
void IRPrinter::visit(const EQ *op) {
    print_binary(op->a, "==", op->b);
}
void IRPrinter::visit(const NE *op) {
    print_binary(op->a, "!=", op->b);
}
void IRPrinter::visit(const LT *op) {
    print_binary(op->a, "<", op->b);
}
void IRPrinter::visit(const LE *op) {
    print_binary(op->a, "<=", op->b);
}
void IRPrinter::visit(const GT *op) {
    print_binary(op->a, ">", op->b);
}
void IRPrinter::visit(const GE *op) {
    print_binary(op->a, ">=", op->b);
}
void IRPrinter::visit(const And *op) {
    print_binary(op->a, "&&", op->b);
}
void IRPrinter::visit(const Or *op) {
    print_binary(op->a, "||", op->b);
}

void IRPrinter::visit(const Min *op) {
    os_ << "min(";
    print_args({op->a, op->b});
    os_ << ')';
}

void IRPrinter::visit(const Max *op) {
    os_ << "max(";
    print_args({op->a, op->b});
    os_ << ')';
}

void IRPrinter::visit(const Not *op) {
    os_ << '!';
    include(op->a);
}

void IRPrinter::visit(const Select *op) {
    os_ << "select(";
    print_args({op->condition, op->true_value, op->false_value});
    os_ << ')';
}

void IRPrinter::visit(const Load *op) {
    os_ << op->name << '[';
    include(op->index);
    os_ << ']';
    if (!is_const_true(op->predicate)) {
        os_ << " if ";
        include(op->predicate);
    }
}

void IRPrinter::visit(const Ramp *op) {
    os_ << "ramp(";
    print_args({op->base, op->stride});
    os_ << ", " << op->lanes << ')';
}

void IRPrinter::visit(const Broadcast *op) {
    os_ << 'x' << op->lanes << '(';
    include(op->value);
    os_ << ')';
}

void IRPrinter::visit(const Call *op) {
    os_ << op->name << '(';
    print_args(op->args);
    os_ << ')';
    if (op->call_type == Call::CallType::Func && op->value_index != 0) {
        os_ << '[' << op->value_index << ']';
    }
}

void IRPrinter::visit(const Let *op) {
    os_ << "(let " << op->name << " = ";
    include(op->value);
    os_ << " in ";
    include(op->body);
    os_ << ')';
}

void IRPrinter::visit(const Shuffle *op) {
    if (op->is_concat()) {
        os_ << "concat_vectors(";
        print_args(op->vectors);
        os_ << ')';
    } else if (op->is_slice()) {
        os_ << "slice_vectors(";
        include(op->vectors[0]);
        os_ << ", " << op->slice_begin() << ", " << op->slice_stride() << ", " << op->indices.size()
            << ')';
    } else {
        os_ << "shuffle(";
        print_args(op->vectors);
        for (int i : op->indices)
            os_ << ", " << i;
        os_ << ')';
    }
}

void IRPrinter::visit(const VectorReduce *op) {
    static const char *names[] = {"add", "mul", "min", "max", "and", "or"};
    os_ << '(' << op->type << ")vector_reduce_" << names[static_cast<int>(op->op)] << '(';
    include(op->value);
    os_ << ')';
}

void IRPrinter::visit(const LetStmt *op) {
    indent();
    os_ << "let " << op->name << " = ";
    include(op->value);
    os_ << '\n';
    include(op->body);
}

void IRPrinter::visit(const AssertStmt *op) {
    indent();
    os_ << "assert(";
    print_args({op->condition, op->message});
    os_ << ")\n";
}

void IRPrinter::visit(const ProducerConsumer *op) {
    indent();
    os_ << (op->is_producer ? "produce " : "consume ") << op->name;
    print_block(op->body);
}

void IRPrinter::visit(const For *op) {
    indent();
    if (op->for_type != ForType::Serial) os_ << to_string(op->for_type) << ' ';
    os_ << "for (" << op->name << ", ";
    print_args({op->min, op->extent});
    os_ << ')';
    if (op->device_api != DeviceAPI::None) os_ << " on " << to_string(op->device_api);
    print_block(op->body);
}

void IRPrinter::visit(const Store *op) {
    indent();
    os_ << op->name << '[';
    include(op->index);
    os_ << "] = ";
    include(op->value);
    if (!is_const_true(op->predicate)) {
        os_ << " if ";
        include(op->predicate);
    }
    os_ << '\n';
}

void IRPrinter::visit(const Provide *op) {
    indent();
    os_ << op->name << '(';
    print_args(op->args);
    os_ << ") = ";
    if (op->values.size() > 1) os_ << '{';
    print_args(op->values);
    if (op->values.size() > 1) os_ << '}';
    if (!is_const_true(op->predicate)) {
        os_ << " if ";
        include(op->predicate);
    }
    os_ << '\n';
}

void IRPrinter::visit(const Allocate *op) {
    indent();
    os_ << "allocate " << op->name << '[' << op->type;
    for (const Expr &e : op->extents) {
        os_ << " * ";
        include(e);
    }
    os_ << ']';
    if (op->memory_type != MemoryType::Auto) os_ << " in " << to_string(op->memory_type);
    if (!is_const_true(op->condition)) {
        os_ << " if ";
        include(op->condition);
    }
    os_ << '\n';
    include(op->body);
}

void IRPrinter::visit(const Free *op) {
    indent();
    os_ << "free " << op->name << '\n';
}

void IRPrinter::visit(const Realize *op) {
    indent();
    os_ << "realize " << op->name << '(';
    for (size_t i = 0; i < op->bounds.size(); i++) {
        if (i) os_ << ", ";
        os_ << '[';
        print_args({op->bounds[i].min, op->bounds[i].extent});
        os_ << ']';
    }
    os_ << ')';
    if (op->memory_type != MemoryType::Auto) os_ << " in " << to_string(op->memory_type);
    if (!is_const_true(op->condition)) {
        os_ << " if ";
        include(op->condition);
    }
    print_block(op->body);
}

void IRPrinter::visit(const Block *op) {
    include(op->first);
    include(op->rest);
}

void IRPrinter::visit(const IfThenElse *op) {
    indent();
    os_ << "if (";
    include(op->condition);
    os_ << ')';
    print_block(op->then_case);
    if (op->else_case.defined()) {
        indent();
        os_ << "else";
        print_block(op->else_case);
    }
}

void IRPrinter::visit(const Atomic *op) {
    indent();
    os_ << "atomic " << op->name;
    print_block(op->body);
}

void IRPrinter::visit(const Evaluate *op) {
    indent();
    include(op->value);
    os_ << '\n';
}

std::string call_text(const std::string &func, const std::vector<Expr> &args) {
    std::ostringstream s;
    s << func << "(";
    for (size_t i = 0; i < args.size(); i++)
        s << (i ? ", " : "") << args[i];
    s << ")";
    return s.str();
}

}  // namespace ir
}  // namespace dsl
