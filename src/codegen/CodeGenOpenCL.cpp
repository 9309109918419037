#include "codegen/CodeGenOpenCL.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>

#include "codegen/PrintfFormat.h"
#include "ir/Error.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Scope.h"
#include "ir/StoreFold.h"

namespace dsl::codegen {

using namespace ir;

namespace {

/// Integer helpers with dsl's semantics (include/dsl/Expr.h): Euclidean division and modulo
/// with x / 0 == 0 and x % 0 == 0, and shifts by any amount (a negative amount shifts the other
/// way; past the width, zeros or the sign). One set per integer type.
constexpr const char *kPrelude =
    R"(#define DSL_SIGNED_OPS(T, UT, BITS)                                  \
inline T dsl_div_##T(T a, T b) {                                            \
    if (b == 0) return 0;                                                   \
    if (b == -1) return (T)((UT)0 - (UT)a);                                 \
    T q = a / b, r = a % b;                                                 \
    if (r < 0) q = b > 0 ? q - 1 : q + 1;                                   \
    return q;                                                               \
}                                                                           \
inline T dsl_mod_##T(T a, T b) {                                            \
    if (b == 0 || b == -1) return 0;                                        \
    T r = a % b;                                                            \
    if (r < 0) r = b > 0 ? r + b : r - b;                                   \
    return r;                                                               \
}                                                                           \
inline T dsl_shift_##T(T a, long n) {                                       \
    if (n >= BITS) return 0;                                                \
    if (n <= -BITS) return a < 0 ? (T)-1 : (T)0;                            \
    return n >= 0 ? (T)((UT)a << n) : (T)(a >> -n);                         \
}
#define DSL_UNSIGNED_OPS(T, BITS)                                           \
inline T dsl_div_##T(T a, T b) { return b == 0 ? (T)0 : (T)(a / b); }      \
inline T dsl_mod_##T(T a, T b) { return b == 0 ? (T)0 : (T)(a % b); }      \
inline T dsl_shift_##T(T a, long n) {                                       \
    if (n >= BITS || n <= -BITS) return 0;                                  \
    return n >= 0 ? (T)(a << n) : (T)(a >> -n);                             \
}
DSL_SIGNED_OPS(char, uchar, 8)
DSL_SIGNED_OPS(short, ushort, 16)
DSL_SIGNED_OPS(int, uint, 32)
DSL_SIGNED_OPS(long, ulong, 64)
DSL_UNSIGNED_OPS(uchar, 8)
DSL_UNSIGNED_OPS(ushort, 16)
DSL_UNSIGNED_OPS(uint, 32)
DSL_UNSIGNED_OPS(ulong, 64)
)";

class OpenCLPrinter : public IRVisitor {
  public:
    explicit OpenCLPrinter(std::ostringstream &out) : out_(out) {}

    void kernel(const GPUKernel &k) {
        kernel_ = k.name;
        out_ << "__kernel void " << k.name << "(";
        std::vector<std::string> unpack;
        for (size_t i = 0; i < k.args.size(); i++) {
            const KernelArgument &a = k.args[i];
            if (i) out_ << ", ";
            std::string id = fresh(a.name);
            if (a.is_buffer) {
                out_ << "__global " << (a.written ? "" : "const ") << storage_name(a.type) << " *"
                     << id;
                if (is_half_float(a.type)) uses_half_floats = true;
                buffers_.push(a.name, {id, a.type});
            } else if (a.type.is_bool()) {
                // Kernels take no bools: a byte, tested.
                out_ << "uchar " << id << "_byte";
                unpack.push_back("const bool " + id + " = " + id + "_byte != 0;");
                names_.push(a.name, id);
            } else if (is_half_float(a.type)) {
                // A 16-bit float scalar arrives as its two bytes (OpenCL C has no half
                // arguments without cl_khr_fp16), a float inside, as the kernel's values are.
                out_ << "ushort " << id << "_bits";
                uses_half_floats = true;
                unpack.push_back("const float " + id + " = " + from_bits(a.type, id + "_bits") +
                                 ";");
                names_.push(a.name, id);
            } else {
                out_ << type_name(a.type) << " " << id;
                names_.push(a.name, id);
            }
        }
        // Shared memory sized at the launch: a __local pointer each, after the arguments.
        dynamic_.clear();
        for (const DynamicSharedAllocation &d : k.dynamic_shared) {
            Type t = d.type.is_bool() ? UInt(8) : d.type;
            check_type(t);
            std::string id = fresh(d.name);
            out_ << (k.args.empty() && dynamic_.empty() ? "" : ", ") << "__local " << type_name(t)
                 << " *" << id;
            dynamic_[d.name] = id;
        }
        out_ << ") {\n";
        indent_ = 1;
        for (const std::string &u : unpack)
            line() << u << "\n";
        // Shared storage is declared at the kernel's scope, as OpenCL C requires.
        shared_.clear();
        declare_shared(k.body);
        include(k.body);
        out_ << "}\n\n";
    }

    bool uses_double = false;
    /// Some kernel computes float16 or bfloat16 values (the helpers of kHalfPrelude).
    bool uses_half_floats = false;

  protected:
    using IRVisitor::visit;

    // Expressions: each becomes a constant named by id_ (or a literal).
    void visit(const IntImm *op) override {
        Type t = op->type;
        if (t.bits() == 32 && op->value == INT32_MIN) {
            id_ = "(-2147483647 - 1)";
        } else if (t.bits() == 64) {
            id_ = op->value == INT64_MIN ? "(-9223372036854775807L - 1L)"
                                         : "(" + std::to_string(op->value) + "L)";
        } else if (t.bits() == 32) {
            id_ = op->value < 0 ? "(" + std::to_string(op->value) + ")" : std::to_string(op->value);
        } else {
            id_ = "((" + type_name(t) + ")" + std::to_string(op->value) + ")";
        }
    }
    void visit(const UIntImm *op) override {
        if (op->type.is_bool()) {
            id_ = op->value ? "true" : "false";
        } else {
            id_ = "((" + type_name(op->type) + ")" + std::to_string(op->value) + "UL)";
        }
    }
    void visit(const FloatImm *op) override {
        Type t = op->type;
        check_type(t);
        bool single = t.bits() <= 32;  // float16 and bfloat16 constants are floats
        if (std::isnan(op->value)) {
            id_ = single ? "NAN" : "((double)NAN)";
        } else if (std::isinf(op->value)) {
            id_ = std::string(op->value < 0 ? "(-" : "(") +
                  (single ? "INFINITY" : "(double)INFINITY") + ")";
        } else {
            char text[64];
            std::snprintf(text, sizeof(text), "%a", op->value);
            id_ = std::string("(") + text + (single ? "f" : "") + ")";
        }
    }
    void visit(const StringImm *) override {
        user_error << "GPU kernel " << kernel_
                   << " uses a string, which the OpenCL back end cannot pass to a kernel.";
    }
    void visit(const Variable *op) override {
        const std::string *id = names_.find(op->name);
        internal_assert(id) << "OpenCL: " << op->name << " is not bound in kernel " << kernel_;
        id_ = *id;
    }
    void visit(const Cast *op) override {
        Type from = op->value.type(), to = op->type;
        check_type(to);
        check_type(from);
        std::string v = expr(op->value);
        if (to.is_vector()) {
            // (Casts to 16-bit floats go lane by lane: see needs_lanes.)
            const std::string n = std::to_string(to.lanes());
            if (to.is_bool()) {
                id_ = from.is_bool() ? v
                                     : assign(to, "convert_char" + n + "(" + v + " != (" +
                                                      type_name(from) + ")(0))");
            } else if (from.is_bool()) {
                id_ = assign(to, "convert_" + type_name(to) + "(-" + v + ")");  // -1 -> 1
            } else if ((from.is_float() || from.is_bfloat()) && to.is_int_or_uint()) {
                id_ = assign(to, "convert_" + type_name(to) + "_sat_rtz(" + v + ")");
            } else {
                id_ = assign(to, "convert_" + type_name(to) + "(" + v + ")");
            }
            return;
        }
        if (is_half_float(to)) {
            if (from.is_float() && from.bits() == 64) {
                id_ = assign(to, rounding(to) + "_d(" + v + ")");
            } else if (from.is_int_or_uint() && !from.is_bool()) {
                // Through a double (exact for integers of up to 32 bits), rounded once.
                uses_double = true;
                id_ = assign(to, rounding(to) + "_d((double)(" + v + "))");
            } else {
                id_ = assign(to, rounding(to) + "((float)(" + v + "))");
            }
        } else if (to.is_bool()) {
            id_ = assign(to, "(" + v + " != 0)");
        } else if ((from.is_float() || from.is_bfloat()) && to.is_int_or_uint()) {
            // Out of range, dsl leaves the value unspecified: a saturating conversion is defined.
            id_ = assign(to, "convert_" + type_name(to) + "_sat_rtz(" + v + ")");
        } else {
            id_ = assign(to, "(" + type_name(to) + ")(" + v + ")");
        }
    }
    void visit(const Add *op) override { binary(op->type, op->a, op->b, "+"); }
    void visit(const Sub *op) override { binary(op->type, op->a, op->b, "-"); }
    void visit(const Mul *op) override { binary(op->type, op->a, op->b, "*"); }
    void visit(const Div *op) override {
        if (op->type.is_float() || op->type.is_bfloat()) {
            return binary(op->type, op->a, op->b, "/");
        }
        helper("dsl_div_", op->type, op->a, op->b);
    }
    void visit(const Mod *op) override {
        if (op->type.is_float() || op->type.is_bfloat()) {
            // a - b * floor(a / b), each step rounded (FP_CONTRACT is off; a 16-bit float's
            // steps rounded to its type).
            check_type(op->type);
            const bool half = is_half_float(op->type);
            auto rounded = [&](const std::string &e) {
                return half ? rounding(op->type) + "(" + e + ")" : e;
            };
            std::string a = expr(op->a), b = expr(op->b);
            std::string q = assign(op->type, rounded(a + " / " + b));
            std::string p = assign(op->type, rounded(b + " * floor(" + q + ")"));
            id_ = assign(op->type, rounded(a + " - " + p));
            return;
        }
        helper("dsl_mod_", op->type, op->a, op->b);
    }
    void visit(const Min *op) override { pick(op->type, op->a, op->b, "<"); }
    void visit(const Max *op) override { pick(op->type, op->a, op->b, ">"); }
    void visit(const EQ *op) override { binary(op->type, op->a, op->b, "=="); }
    void visit(const NE *op) override { binary(op->type, op->a, op->b, "!="); }
    void visit(const LT *op) override { binary(op->type, op->a, op->b, "<"); }
    void visit(const LE *op) override { binary(op->type, op->a, op->b, "<="); }
    void visit(const GT *op) override { binary(op->type, op->a, op->b, ">"); }
    void visit(const GE *op) override { binary(op->type, op->a, op->b, ">="); }
    // A vector of bools is a vector of chars, -1 for true (what OpenCL's comparisons give).
    void visit(const And *op) override {
        binary(op->type, op->a, op->b, op->type.is_vector() ? "&" : "&&");
    }
    void visit(const Or *op) override {
        binary(op->type, op->a, op->b, op->type.is_vector() ? "|" : "||");
    }
    void visit(const Not *op) override {
        id_ = assign(op->type, (op->type.is_vector() ? "~" : "!") + expr(op->a));
    }
    void visit(const Select *op) override {
        check_type(op->type);
        std::string c = expr(op->condition), a = expr(op->true_value), b = expr(op->false_value);
        if (op->condition.type().is_vector()) {
            // select() tests the top bit of a mask as wide as the values' lanes.
            id_ = assign(op->type, "select(" + b + ", " + a + ", " + mask(c, op->type) + ")");
        } else {
            id_ = assign(op->type, c + " ? " + a + " : " + b);
        }
    }
    void visit(const Load *op) override {
        check_type(op->type);
        if (op->type.is_vector()) return vector_load(op);
        if (!atomic_old_.buffer.empty() && op->name == atomic_old_.buffer &&
            equal(op->index, atomic_old_.index)) {
            id_ = atomic_old_.value;  // the running value of an atomic update
            return;
        }
        std::string index = expr(op->index);
        std::string element = load_element(op->name, op->type, index);
        if (!is_const_true(op->predicate)) {
            std::string p = expr(op->predicate);
            element = p + " ? " + element + " : (" + type_name(op->type) + ")0";
        }
        id_ = assign(op->type, element);
    }
    void visit(const Ramp *op) override {
        check_type(op->type);
        std::string base = expr(op->base), stride = expr(op->stride);
        const std::string vt = type_name(op->type);
        if (op->base.type().is_scalar()) {
            std::string offsets;
            for (int i = 0; i < op->lanes; i++)
                offsets += (i ? ", " : "") + std::to_string(i);
            id_ = assign(op->type, "(" + vt + ")(" + base + ") + (" + vt + ")(" + stride + ") * (" +
                                       vt + ")(" + offsets + ")");
            return;
        }
        // A ramp of vectors: lane j of step i is base's lane j plus i strides.
        const Type bt = op->base.type();
        std::vector<std::string> lanes;
        for (int i = 0; i < op->lanes; i++) {
            for (int j = 0; j < bt.lanes(); j++)
                lanes.push_back(lane(base, bt, j) + " + (" + type_name(bt.element_of()) + ")" +
                                std::to_string(i) + " * " + lane(stride, bt, j));
        }
        id_ = assign(op->type, "(" + vt + ")(" + join(lanes) + ")");
    }
    void visit(const Broadcast *op) override {
        check_type(op->type);
        const Type vt = op->value.type();
        std::string v = expr(op->value);
        std::vector<std::string> lanes;
        for (int i = 0; i < op->type.lanes(); i++)
            lanes.push_back(vector_lane(v, vt, i % vt.lanes()));
        id_ = vt.is_scalar()
                  ? assign(op->type, "(" + type_name(op->type) + ")(" + lanes[0] + ")")
                  : assign(op->type, "(" + type_name(op->type) + ")(" + join(lanes) + ")");
    }
    void visit(const Shuffle *op) override {
        check_type(op->type);
        std::vector<std::string> ids;
        for (const Expr &v : op->vectors)
            ids.push_back(expr(v));
        std::vector<std::string> lanes;
        for (int index : op->indices) {
            size_t k = 0;
            while (index >= op->vectors[k].type().lanes())
                index -= op->vectors[k++].type().lanes();
            lanes.push_back(op->type.is_scalar()
                                ? lane(ids[k], op->vectors[k].type(), index)
                                : vector_lane(ids[k], op->vectors[k].type(), index));
        }
        id_ = op->type.is_scalar()
                  ? assign(op->type, lanes[0])
                  : assign(op->type, "(" + type_name(op->type) + ")(" + join(lanes) + ")");
    }
    void visit(const VectorReduce *op) override {
        // Each lane of the result folds a group of the value's lanes with the scalar code.
        check_type(op->value.type());
        check_type(op->type);
        const Type vt = op->value.type(), et = vt.element_of();
        std::string v = expr(op->value);
        const int group = vt.lanes() / op->type.lanes();
        std::vector<std::string> out;
        for (int i = 0; i < op->type.lanes(); i++) {
            LaneNames bound(*this);
            Expr acc;
            for (int j = 0; j < group; j++) {
                Expr x = bound.variable(et, lane(v, vt, i * group + j));
                acc = acc.defined() ? fold_combine(op->op, acc, x) : x;
            }
            out.push_back(expr(acc));
        }
        if (op->type.is_scalar()) {
            id_ = out[0];
            return;
        }
        for (std::string &o : out)
            if (op->type.is_bool()) o = "(" + o + " ? -1 : 0)";
        id_ = assign(op->type, "(" + type_name(op->type) + ")(" + join(out) + ")");
    }
    void visit(const Let *op) override {
        std::string v = expr(op->value);
        std::string id = fresh(op->name);
        line() << "const " << type_name(op->value.type()) << " " << id << " = " << v << ";\n";
        ScopedBinding<std::string> bind(names_, op->name, id);
        id_ = expr(op->body);
    }
    void visit(const Call *op) override {
        call_value(op);
        // A function's float16 or bfloat16 result, computed in float, rounded to its type (the
        // others give values of the type already: abs, floor, a select, ...).
        if (is_half_float(op->type) && op->call_type == Call::CallType::Intrinsic &&
            (is_float_function(op->intrinsic) || op->intrinsic == Call::Intrinsic::Absd)) {
            id_ = assign(op->type, rounding(op->type) + "(" + id_ + ")");
        }
    }
    void call_value(const Call *op);
    void print(const Call *op);

    // Statements.
    void visit(const LetStmt *op) override {
        std::string v = expr(op->value);
        std::string id = fresh(op->name);
        line() << "const " << type_name(op->value.type()) << " " << id << " = " << v << ";\n";
        ScopedBinding<std::string> bind(names_, op->name, id);
        include(op->body);
    }
    void visit(const AssertStmt *) override {
        user_error << "GPU kernel " << kernel_
                   << " holds a run-time check, which the OpenCL back end cannot report from a "
                      "kernel; check the sizes on the host (outside the GPU loops).";
    }
    void visit(const ProducerConsumer *op) override { include(op->body); }
    void visit(const For *op) override {
        line() << "{\n";
        indent_++;
        std::string min = expr(op->min), extent = expr(op->extent);
        std::string end = assign(op->min.type(), min + " + " + extent);
        std::string id = fresh(op->name);
        line() << "for (" << type_name(op->min.type()) << " " << id << " = " << min << "; " << id
               << " < " << end << "; " << id << "++) {\n";
        indent_++;
        {
            ScopedBinding<std::string> bind(names_, op->name, id);
            include(op->body);
        }
        indent_--;
        line() << "}\n";
        indent_--;
        line() << "}\n";
    }
    void visit(const Atomic *op) override {
        std::string saved = atomic_;
        atomic_ = op->name;
        include(op->body);
        atomic_ = saved;
    }
    /// A store to the buffer of an enclosing Atomic: a compare-and-swap loop on the element's
    /// 32 bits that recomputes the new value from the one it found (OpenCL 1.2's atomics are
    /// on 32-bit integers; floats go through their bits).
    void atomic_store(const Store *op) {
        Type t = op->value.type();
        const Buffer *b = buffers_.find(op->name);
        internal_assert(b) << "OpenCL: buffer " << op->name << " is not bound in kernel "
                           << kernel_;
        user_assert(t.bits() == 32)
            << "GPU kernel " << kernel_ << " updates \"" << op->name
            << "\" atomically, which OpenCL does for 32-bit values only; it holds " << t
            << ". Accumulate in int32, uint32 or float32.";
        const std::string space = b->local ? "__local" : "__global";
        std::string index = expr(op->index);
        std::string element = element_ref(op->name, t, index);
        if (!is_const_true(op->predicate)) {
            line() << "if (" << expr(op->predicate) << ") {\n";
        } else {
            line() << "{\n";
        }
        indent_++;
        std::string p = fresh("atomic_ptr"), old = fresh("atomic_old"),
                    value = fresh("atomic_value"), next = fresh("atomic_new");
        line() << "volatile " << space << " uint *" << p << " = (volatile " << space << " uint *)&"
               << element << ";\n";
        line() << "uint " << old << ", " << next << ";\n";
        line() << "do {\n";
        indent_++;
        line() << old << " = *" << p << ";\n";
        line() << "const " << type_name(t) << " " << value << " = as_" << type_name(t) << "(" << old
               << ");\n";
        atomic_old_ = {op->name, op->index, value};
        std::string v = expr(op->value);
        atomic_old_ = {};
        line() << next << " = as_uint(" << v << ");\n";
        indent_--;
        line() << "} while (atomic_cmpxchg(" << p << ", " << old << ", " << next << ") != " << old
               << ");\n";
        indent_--;
        line() << "}\n";
    }
    void visit(const Store *op) override {
        const bool atomic =
            !atomic_.empty() && op->name == atomic_ && !buffers_.find(op->name)->private_array;
        Type t = op->value.type();
        check_type(t);
        if (t.is_vector()) {
            user_assert(!atomic) << "GPU kernel " << kernel_ << " updates \"" << op->name
                                 << "\" atomically in vectors of " << t.lanes()
                                 << " lanes, which the OpenCL back end does not do; do not "
                                    "vectorize the atomic update inside the GPU threads.";
            return vector_store(op);
        }
        if (atomic) {
            atomic_store(op);
            return;
        }
        std::string index = expr(op->index), value = expr(op->value);
        std::string store = store_element(op->name, t, index, value);
        if (!is_const_true(op->predicate)) {
            std::string p = expr(op->predicate);
            line() << "if (" << p << ") " << store << "\n";
        } else {
            line() << store << "\n";
        }
    }
    void visit(const Allocate *op) override {
        int64_t elements = 1;
        for (const Expr &e : op->extents) {
            auto c = as_const_int(e);
            user_assert(c.has_value() || dynamic_.count(op->name))
                << "GPU kernel " << kernel_ << " allocates \"" << op->name
                << "\" with a size known only at run time; inside a GPU thread, storage needs a "
                   "constant size. Split the loops it is computed in by constants.";
            elements *= c.value_or(1);
        }
        Type t = op->type.is_bool() ? UInt(8) : op->type;
        check_type(t);
        std::string id;
        if (op->memory_type == MemoryType::GPUShared) {
            auto dynamic = dynamic_.find(op->name);
            id = dynamic != dynamic_.end() ? dynamic->second : shared_.at(op);
        } else {
            id = fresh(op->name);
            line() << type_name(t) << " " << id << "[" << std::max<int64_t>(elements, 1) << "];\n";
        }
        ScopedBinding<Buffer> bind(buffers_, op->name,
                                   {id, t, true, op->memory_type == MemoryType::GPUShared});
        include(op->body);
    }
    void visit(const Free *) override {}
    void visit(const Block *op) override {
        include(op->first);
        include(op->rest);
    }
    void visit(const IfThenElse *op) override {
        std::string c = expr(op->condition);
        line() << "if (" << c << ") {\n";
        indent_++;
        include(op->then_case);
        indent_--;
        if (op->else_case.defined()) {
            line() << "} else {\n";
            indent_++;
            include(op->else_case);
            indent_--;
        }
        line() << "}\n";
    }
    void visit(const Evaluate *op) override {
        if (const auto *call = op->value.as<Call>();
            call && call->is_intrinsic(Call::Intrinsic::Prefetch))
            return;  // a CPU cache hint
        std::string v = expr(op->value);
        line() << "(void)" << v << ";\n";
    }
    void visit(const Provide *) override { internal_error << "OpenCL met a Provide"; }
    void visit(const Realize *) override { internal_error << "OpenCL met a Realize"; }

  private:
    struct Buffer {
        std::string id;
        Type type;
        bool private_array = false;  ///< declared in the kernel (private or __local)
        bool local = false;          ///< in __local memory (shared by the block)
    };

    std::string expr(const Expr &e) {
        if (e.type().is_vector() && needs_lanes(e)) {
            lanewise(e);
        } else {
            include(e);
        }
        return id_;
    }

    // Vectors. OpenCL C computes most operations on its vector types as they are; the others
    // (integer division, shifts, 16-bit floats, ...) go lane by lane through the scalar code.

    /// Whether `op` is one of the float functions of OpenCL C's builtins (on vectors too),
    /// computed in float (a 16-bit float's result rounded after).
    static bool is_float_function(Call::Intrinsic op) {
        using I = Call::Intrinsic;
        for (I f : {I::Sqrt, I::Exp, I::Log, I::Pow, I::Sin, I::Cos, I::Tan, I::Atan2, I::Fma})
            if (op == f) return true;
        return false;
    }
    /// Whether the vector `e` is computed lane by lane.
    static bool needs_lanes(const Expr &e) {
        const Type t = e.type();
        if (e.as<Cast>()) return is_half_float(t);
        if (e.as<Div>() || e.as<Mod>()) return !t.is_float() || is_half_float(t);
        if (e.as<Add>() || e.as<Sub>() || e.as<Mul>()) return is_half_float(t);
        if (e.as<LT>() || e.as<LE>() || e.as<GT>() || e.as<GE>()) {
            return operands(e)[0].type().is_bool();  // -1 is true: the order is reversed
        }
        if (const auto *c = e.as<Call>()) {
            using I = Call::Intrinsic;
            if (c->call_type != Call::CallType::Intrinsic) return false;
            switch (c->intrinsic) {
                case I::BitwiseAnd:
                case I::BitwiseOr:
                case I::BitwiseXor:
                case I::BitwiseNot:
                case I::Likely:
                case I::PromiseClamped:
                case I::MemoizeTag:
                case I::StrictFloat:
                case I::Print:  // one line per lane (print())
                    return false;
                case I::Floor:
                case I::Ceil:
                case I::Round:
                case I::Trunc:
                    return is_half_float(t);
                case I::Abs:
                    return !c->args[0].type().is_float() || is_half_float(t);
                default:
                    return is_float_function(c->intrinsic) ? is_half_float(t) : true;
            }
        }
        return false;
    }
    /// The operands of an operation that needs_lanes.
    static std::vector<Expr> operands(const Expr &e) {
        if (const auto *c = e.as<Cast>()) return {c->value};
        if (const auto *c = e.as<Call>()) return c->args;
        if (const auto *n = e.as<Add>()) return {n->a, n->b};
        if (const auto *n = e.as<Sub>()) return {n->a, n->b};
        if (const auto *n = e.as<Mul>()) return {n->a, n->b};
        if (const auto *n = e.as<Div>()) return {n->a, n->b};
        if (const auto *n = e.as<Mod>()) return {n->a, n->b};
        if (const auto *n = e.as<LT>()) return {n->a, n->b};
        if (const auto *n = e.as<LE>()) return {n->a, n->b};
        if (const auto *n = e.as<GT>()) return {n->a, n->b};
        if (const auto *n = e.as<GE>()) return {n->a, n->b};
        internal_error << "OpenCL: no lane-by-lane form of " << e;
        return {};
    }
    /// The same scalar operation as `e` on `args`.
    static Expr rebuild(const Expr &e, const std::vector<Expr> &args) {
        if (const auto *c = e.as<Cast>()) return Cast::make(c->type.element_of(), args[0]);
        if (const auto *c = e.as<Call>())
            return Call::make(c->type.element_of(), c->intrinsic, args);
        if (e.as<Add>()) return Add::make(args[0], args[1]);
        if (e.as<Sub>()) return Sub::make(args[0], args[1]);
        if (e.as<Mul>()) return Mul::make(args[0], args[1]);
        if (e.as<Div>()) return Div::make(args[0], args[1]);
        if (e.as<Mod>()) return Mod::make(args[0], args[1]);
        if (e.as<LT>()) return LT::make(args[0], args[1]);
        if (e.as<LE>()) return LE::make(args[0], args[1]);
        if (e.as<GT>()) return GT::make(args[0], args[1]);
        return GE::make(args[0], args[1]);
    }
    /// Scalar variables standing for lanes of vectors in the scalar code, unbound when it goes.
    class LaneNames {
      public:
        explicit LaneNames(OpenCLPrinter &p) : p_(p) {}
        ~LaneNames() {
            for (const std::string &n : names_)
                p_.names_.pop(n);
        }
        LaneNames(const LaneNames &) = delete;
        LaneNames &operator=(const LaneNames &) = delete;
        /// A Variable of type `t` whose value is the OpenCL expression `value`.
        Expr variable(Type t, const std::string &value) {
            std::string name = "lane." + std::to_string(p_.next_++);
            p_.names_.push(name, value);
            names_.push_back(name);
            return Variable::make(t, name);
        }

      private:
        OpenCLPrinter &p_;
        std::vector<std::string> names_;
    };
    /// Computes the vector `e` lane by lane: its operands once as vectors, then the scalar
    /// operation on each lane of them.
    void lanewise(const Expr &e) {
        const Type t = e.type();
        check_type(t);
        std::vector<Expr> args = operands(e);
        std::vector<std::string> ids;
        for (const Expr &a : args)
            ids.push_back(expr(a));
        std::vector<std::string> lanes;
        for (int i = 0; i < t.lanes(); i++) {
            LaneNames bound(*this);
            std::vector<Expr> scalars;
            for (size_t k = 0; k < args.size(); k++) {
                const Type at = args[k].type();
                scalars.push_back(bound.variable(at.element_of(), lane(ids[k], at, i)));
            }
            std::string v = expr(rebuild(e, scalars));
            lanes.push_back(t.is_bool() ? "(" + v + " ? -1 : 0)" : v);
        }
        id_ = assign(t, "(" + type_name(t) + ")(" + join(lanes) + ")");
    }
    /// Lane `i` of `id` (of type `t`) as a scalar of the kernel (a bool as a bool); a scalar is
    /// its own every lane.
    static std::string lane(const std::string &id, Type t, int i) {
        if (t.is_scalar()) return id;
        std::string l = id + ".s" + "0123456789abcdef"[i];
        return t.is_bool() ? "(" + l + " != 0)" : l;
    }
    /// Lane `i` of `id` (of type `t`) as a component of a vector (a bool as -1 or 0).
    static std::string vector_lane(const std::string &id, Type t, int i) {
        if (t.is_scalar()) return t.is_bool() ? "(" + id + " ? -1 : 0)" : id;
        return id + ".s" + "0123456789abcdef"[i];
    }
    static std::string join(const std::vector<std::string> &parts) {
        std::string out;
        for (size_t i = 0; i < parts.size(); i++)
            out += (i ? ", " : "") + parts[i];
        return out;
    }
    /// The vector of bools `condition` as the mask that select() takes for values of `t`.
    static std::string mask(const std::string &condition, Type t) {
        const int bits = t.is_bool() ? 8 : is_half_float(t) ? 32 : t.bits();
        if (bits == 8) return condition;
        return "convert_" + type_name(Int(bits, t.lanes())) + "(" + condition + ")";
    }
    /// One element of buffer `name` read as the kernel holds a scalar of `t` (a 16-bit float as
    /// a float, a bool as a bool).
    std::string load_element(const std::string &name, Type t, const std::string &index) {
        std::string element = element_ref(name, t, index);
        if (is_half_float(t) && !buffers_.find(name)->private_array) {
            // From global memory: a half, or a float's upper half.
            element = t.is_bfloat() ? from_bits(t, element)
                                    : "vload_half(" + index + ", " + global_pointer(name, t) + ")";
        }
        if (t.is_bool()) element = "(" + element + " != 0)";
        return element;
    }
    /// The statement that stores the scalar `value` of `t` into buffer `name`.
    std::string store_element(const std::string &name, Type t, const std::string &index,
                              const std::string &value) {
        std::string element = element_ref(name, t, index);
        // To global memory: a half, or a float's upper half (the value is rounded already).
        if (is_half_float(t) && !buffers_.find(name)->private_array) {
            return t.is_bfloat() ? element + " = " + to_bits(t, value) + ";"
                                 : "vstore_half_rte(" + value + ", " + index + ", " +
                                       global_pointer(name, t) + ");";
        }
        return element + " = " + (t.is_bool() ? "(uchar)" : "") + value + ";";
    }
    /// The first element's index of a dense vector access (a ramp of stride 1), if it is one.
    std::optional<std::string> dense_base(const Expr &index) {
        const auto *r = index.as<Ramp>();
        if (!r || !is_const_one(r->stride) || !r->base.type().is_scalar()) return std::nullopt;
        return expr(r->base);
    }
    /// The pointer to the element at `base` of buffer `name` holding `t`s.
    std::string element_pointer(const std::string &name, Type t, const std::string &base) {
        const Buffer *b = buffers_.find(name);
        Type stored = t.is_bool() ? UInt(8) : t;
        element_ref(name, t, base);  // checks the type
        std::string pointer = b->private_array ? b->id : global_pointer(name, stored);
        return "(" + pointer + " + " + base + ")";
    }
    void vector_load(const Load *op) {
        const Type t = op->type, et = t.element_of();
        const std::string n = std::to_string(t.lanes());
        const bool global = !buffers_.find(op->name)->private_array;
        std::optional<std::string> base = dense_base(op->index);
        std::string index = base ? "" : expr(op->index);
        const bool predicated = !is_const_true(op->predicate);
        std::string predicate = predicated ? expr(op->predicate) : "";
        std::vector<std::string> lanes;
        for (int i = 0; i < t.lanes(); i++) {
            std::string at = base ? "(" + *base + " + " + std::to_string(i) + ")"
                                  : lane(index, op->index.type(), i);
            std::string v = vector_lane(load_element(op->name, et, at), et, 0);
            if (predicated)
                v = "(" + lane(predicate, op->predicate.type(), i) + " ? " + v + " : 0)";
            lanes.push_back(v);
        }
        std::string gathered = "(" + type_name(t) + ")(" + join(lanes) + ")";
        if (!base) {
            id_ = assign(t, gathered);
            return;
        }
        std::string p = element_pointer(op->name, et, *base), whole;
        if (global && et.is_bfloat()) {
            whole = "as_float" + n + "(convert_uint" + n + "(vload" + n + "(0, " + p + ")) << 16)";
        } else if (global && is_half_float(et)) {
            whole = "vload_half" + n + "(0, " + p + ")";
        } else if (et.is_bool()) {
            whole = "(vload" + n + "(0, " + p + ") != (uchar" + n + ")(0))";
        } else {
            whole = "vload" + n + "(0, " + p + ")";
        }
        // A whole vector in one load where every lane is wanted, else lane by lane.
        id_ =
            assign(t, predicated ? "all(" + predicate + ") ? " + whole + " : " + gathered : whole);
    }
    void vector_store(const Store *op) {
        const Type t = op->value.type(), et = t.element_of();
        const std::string n = std::to_string(t.lanes());
        const bool global = !buffers_.find(op->name)->private_array;
        std::optional<std::string> base = dense_base(op->index);
        std::string index = base ? "" : expr(op->index);
        std::string value = expr(op->value);
        const bool predicated = !is_const_true(op->predicate);
        std::string predicate = predicated ? expr(op->predicate) : "";
        auto each_lane = [&] {
            for (int i = 0; i < t.lanes(); i++) {
                std::string at = base ? "(" + *base + " + " + std::to_string(i) + ")"
                                      : lane(index, op->index.type(), i);
                std::string s = store_element(op->name, et, at, lane(value, t, i));
                if (predicated) s = "if (" + lane(predicate, op->predicate.type(), i) + ") " + s;
                line() << s << "\n";
            }
        };
        if (!base) return each_lane();
        std::string p = element_pointer(op->name, et, *base), whole;
        if (global && et.is_bfloat()) {
            whole = "vstore" + n + "(convert_ushort" + n + "(as_uint" + n + "(" + value +
                    ") >> 16), 0, " + p + ");";
        } else if (global && is_half_float(et)) {
            whole = "vstore_half" + n + "_rte(" + value + ", 0, " + p + ");";
        } else if (et.is_bool()) {
            whole = "vstore" + n + "(convert_uchar" + n + "(-" + value + "), 0, " + p + ");";
        } else {
            whole = "vstore" + n + "(" + value + ", 0, " + p + ");";
        }
        if (!predicated) {
            line() << whole << "\n";
            return;
        }
        // A whole vector in one store where every lane is written, else lane by lane.
        line() << "if (all(" << predicate << ")) {\n";
        indent_++;
        line() << whole << "\n";
        indent_--;
        line() << "} else {\n";
        indent_++;
        each_lane();
        indent_--;
        line() << "}\n";
    }
    std::ostream &line() {
        for (int i = 0; i < indent_; i++)
            out_ << "    ";
        return out_;
    }
    std::string fresh(const std::string &name) {
        std::string id = "_";
        for (char c : name)
            id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
        return id + "_" + std::to_string(next_++);
    }
    std::string assign(Type t, const std::string &rhs) {
        std::string id = "_t" + std::to_string(next_++);
        line() << "const " << type_name(t) << " " << id << " = " << rhs << ";\n";
        return id;
    }
    void binary(Type t, const Expr &a, const Expr &b, const char *op) {
        check_type(t);
        std::string x = expr(a), y = expr(b);
        if (t.is_vector() && t.is_bool() && !a.type().is_bool()) {
            // A vector comparison gives a mask as wide as its operands' lanes.
            id_ = assign(t, "convert_" + type_name(t) + "(" + x + " " + op + " " + y + ")");
            return;
        }
        id_ = assign(t, is_half_float(t) ? rounding(t) + "(" + x + " " + op + " " + y + ")"
                                         : x + " " + op + " " + y);
    }
    void pick(Type t, const Expr &a, const Expr &b, const char *op) {
        check_type(t);
        std::string x = expr(a), y = expr(b);
        if (t.is_vector()) {
            if (t.is_bool()) {  // -1 is true: the smaller of two bools is their and
                id_ = assign(t, x + (std::string(op) == "<" ? " & " : " | ") + y);
            } else {
                id_ = assign(t, "select(" + y + ", " + x + ", " + x + " " + op + " " + y + ")");
            }
            return;
        }
        id_ = assign(t, x + " " + op + " " + y + " ? " + x + " : " + y);
    }
    void helper(const char *prefix, Type t, const Expr &a, const Expr &b) {
        check_type(t);
        std::string x = expr(a), y = expr(b);
        id_ = assign(t, prefix + type_name(t) + "(" + x + ", " + y + ")");
    }
    std::string element_ref(const std::string &name, Type t, const std::string &index) {
        const Buffer *b = buffers_.find(name);
        internal_assert(b) << "OpenCL: buffer " << name << " is not bound in kernel " << kernel_;
        Type stored = t.is_bool() ? UInt(8) : t.element_of();
        user_assert(stored == b->type || !b->private_array)
            << "GPU kernel " << kernel_ << " reads \"" << name << "\" as " << stored
            << " though it holds " << b->type << ".";
        return global_pointer(name, stored) + "[" + index + "]";
    }
    /// The buffer `name` as a pointer to elements of `t` (cast where it holds another type).
    std::string global_pointer(const std::string &name, Type t) {
        const Buffer *b = buffers_.find(name);
        if (t.element_of() == b->type) return b->id;
        return "((__global " + storage_name(t.element_of()) + " *)" + b->id + ")";
    }
    void check_type(Type t) {
        const int n = t.lanes();
        user_assert(n == 1 || n == 2 || n == 3 || n == 4 || n == 8 || n == 16)
            << "GPU kernel " << kernel_ << " computes vectors of " << n
            << " lanes; OpenCL C has vectors of 2, 3, 4, 8 and 16 lanes. Vectorize the loops "
               "inside the GPU threads of this Func by one of those.";
        if (is_half_float(t)) uses_half_floats = true;
        user_assert(!t.is_handle()) << "GPU kernel " << kernel_ << " uses a handle.";
        if (t.is_float() && t.bits() == 64) uses_double = true;
    }

  public:
    /// OpenCL C's name of `t`: a vector type (`float4`) for vectors, whose bools are chars (-1
    /// for true, as comparisons give them).
    static std::string type_name(Type t) {
        if (t.is_vector()) {
            return (t.is_bool() ? std::string("char") : type_name(t.element_of())) +
                   std::to_string(t.lanes());
        }
        return scalar_type_name(t);
    }
    static std::string scalar_type_name(Type t) {
        if (t.is_bool()) return "bool";
        switch (t.code()) {
            case TypeCode::Int:
                return t.bits() == 8    ? "char"
                       : t.bits() == 16 ? "short"
                       : t.bits() == 32 ? "int"
                                        : "long";
            case TypeCode::UInt:
                return t.bits() == 8    ? "uchar"
                       : t.bits() == 16 ? "ushort"
                       : t.bits() == 32 ? "uint"
                                        : "ulong";
            case TypeCode::Float:
                // A float16 value is a float in the kernel (rounded to float16).
                return t.bits() == 64 ? "double" : "float";
            case TypeCode::BFloat:
                return "float";
            default:
                return "void";
        }
    }
    static bool is_half_float(Type t) { return (t.is_float() && t.bits() == 16) || t.is_bfloat(); }
    /// The element type of a global buffer of `t`: a float16 buffer holds halves, a bfloat16
    /// one the upper halves of floats.
    static std::string storage_name(Type t) {
        if (t.is_bfloat()) return "ushort";
        if (t.is_float() && t.bits() == 16) return "half";
        return type_name(t);
    }
    /// The float that the 16 bits `bits` (a ushort) of a float16 or bfloat16 hold.
    static std::string from_bits(Type t, const std::string &bits) {
        return t.is_bfloat() ? "as_float((uint)" + bits + " << 16)"
                             : "dsl_f16_from_bits(" + bits + ")";
    }
    /// The 16 bits (a ushort) of `value`, a float already rounded to float16 or bfloat16 `t`.
    static std::string to_bits(Type t, const std::string &value) {
        return t.is_bfloat() ? "(ushort)(as_uint(" + value + ") >> 16)"
                             : "dsl_f16_bits(" + value + ")";
    }
    /// The function that rounds a float to `t`'s 16-bit float type.
    static std::string rounding(Type t) {
        return t.is_bfloat() ? "dsl_round_bf16" : "dsl_round_f16";
    }

  private:
    std::ostringstream &out_;
    std::string kernel_, id_;
    /// Declares each shared allocation of `body` (`__local`) and names it in shared_.
    void declare_shared(const Stmt &body) {
        struct Finder : IRVisitor {
            using IRVisitor::visit;
            std::vector<const Allocate *> found;
            void visit(const Allocate *op) override {
                if (op->memory_type == MemoryType::GPUShared) found.push_back(op);
                IRVisitor::visit(op);
            }
        } finder;
        finder.include(body);
        for (const Allocate *a : finder.found) {
            if (dynamic_.count(a->name)) continue;  // an argument
            int64_t elements = 1;
            for (const Expr &e : a->extents)
                elements *= as_const_int(e).value_or(1);
            Type t = a->type.is_bool() ? UInt(8) : a->type;
            check_type(t);
            std::string id = fresh(a->name);
            line() << "__local " << type_name(t) << " " << id << "["
                   << std::max<int64_t>(elements, 1) << "];\n";
            shared_[a] = id;
        }
    }

    int indent_ = 0, next_ = 0;
    std::map<const Allocate *, std::string> shared_;
    /// The __local arguments of the kernel's dynamic shared allocations, by name.
    std::map<std::string, std::string> dynamic_;
    Scope<std::string> names_;
    Scope<Buffer> buffers_;
    /// The buffer whose stores are atomic here, and the running value that replaces the load of
    /// the element an atomic store updates while its new value is computed.
    std::string atomic_;
    struct {
        std::string buffer;
        Expr index;
        std::string value;
    } atomic_old_;
};

void OpenCLPrinter::print(const Call *op) {
    // (condition, format, values...): OpenCL C's printf, one line per lane where the condition
    // holds, as on the CPU; value 0 where there are no values.
    const auto *format = op->args[1].as<StringImm>();
    internal_assert(format) << "print: the arguments are (condition, format, values...)";
    std::vector<std::string> ids;
    std::vector<Type> types;
    int lanes = op->args[0].type().lanes();
    for (size_t i = 2; i < op->args.size(); i++) {
        ids.push_back(expr(op->args[i]));
        types.push_back(op->args[i].type().element_of());
        lanes = std::max(lanes, op->args[i].type().lanes());
    }
    std::string condition = expr(op->args[0]);
    PrintfFormat f = printf_format(format->value, types, "l");
    std::string text;  // as a string literal
    for (char c : f.text)
        text += c == '"' || c == '\\' ? std::string("\\") + c
                : c == '\n'           ? std::string("\\n")
                                      : std::string(1, c);
    for (int l = 0; l < lanes; l++) {
        std::string values;
        for (size_t k : f.values) {
            const Type t = types[k];
            std::string v = lane(ids[k], op->args[k + 2].type(), l);
            // Narrow integers and bools as ints (printf's promotions).
            if (!t.is_float() && !t.is_bfloat() && t.bits() < 64)
                v = (t.is_uint() || t.is_bool() ? "(uint)" : "(int)") + v;
            values += ", " + v;
        }
        line() << "if (" << lane(condition, op->args[0].type(), l) << ") printf(\"" << text
               << "\\n\"" << values << ");\n";
    }
    id_ = ids.empty() ? "0" : ids[0];
}

void OpenCLPrinter::call_value(const Call *op) {
    using I = Call::Intrinsic;
    user_assert(op->call_type == Call::CallType::Intrinsic)
        << "GPU kernel " << kernel_ << " calls \"" << op->name
        << "\", an external function, which the OpenCL back end cannot call from a kernel.";
    Type t = op->type;
    auto arg = [&](size_t i) { return expr(op->args[i]); };
    auto call = [&](const std::string &fn) {
        std::string args;
        for (size_t i = 0; i < op->args.size(); i++)
            args += (i ? ", " : "") + arg(i);
        id_ = assign(t, fn + "(" + args + ")");
    };
    switch (op->intrinsic) {
        case I::GPUBlockIndex:
            id_ = assign(t, "(int)get_group_id(" + arg(0) + ")");
            return;
        case I::GPUThreadIndex:
            id_ = assign(t, "(int)get_local_id(" + arg(0) + ")");
            return;
        case I::GPUBarrier:
            line() << "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n";
            id_ = "0";
            return;
        case I::BitwiseAnd:
        case I::BitwiseOr:
        case I::BitwiseXor: {
            check_type(t);
            std::string a = arg(0), b = arg(1);
            const char *o = op->intrinsic == I::BitwiseAnd  ? " & "
                            : op->intrinsic == I::BitwiseOr ? " | "
                                                            : " ^ ";
            // (A scalar narrower than int is promoted by the operator; vectors are not.)
            id_ =
                assign(t, t.is_vector() ? a + o + b : "(" + type_name(t) + ")(" + a + o + b + ")");
            return;
        }
        case I::BitwiseNot:
            id_ = assign(t, (t.is_vector() ? "~" : "(" + type_name(t) + ")~") + arg(0));
            return;
        case I::ShiftLeft:
        case I::ShiftRight: {
            check_type(t);
            Type at = op->args[1].type();
            std::string a = arg(0), n = arg(1);
            int bits = t.bits();
            std::string amount = at.is_uint() ? "(long)(" + n + " > " + std::to_string(bits) +
                                                    " ? " + std::to_string(bits) + " : " + n + ")"
                                              : "(long)" + n;
            if (op->intrinsic == I::ShiftRight) amount = "-" + amount;
            id_ = assign(t, "dsl_shift_" + type_name(t) + "(" + a + ", " + amount + ")");
            return;
        }
        case I::Abs: {
            Type at = op->args[0].type();
            std::string a = arg(0);
            if (at.is_float() || at.is_bfloat()) {
                id_ = assign(t, "fabs(" + a + ")");
            } else {
                // |INT_MIN| wraps to INT_MIN's bit pattern, the right unsigned value.
                id_ =
                    assign(t, "(" + type_name(t) + ")(" + a + " < 0 ? (" + type_name(t) + ")0 - (" +
                                  type_name(t) + ")" + a + " : (" + type_name(t) + ")" + a + ")");
            }
            return;
        }
        case I::Absd: {
            Type at = op->args[0].type();
            std::string a = arg(0), b = arg(1);
            if (at.is_float() || at.is_bfloat()) {
                std::string d = assign(at, a + " - " + b);
                id_ = assign(t, "fabs(" + d + ")");
            } else {
                std::string u = type_name(t);
                id_ = assign(t, a + " > " + b + " ? (" + u + ")((" + u + ")" + a + " - (" + u +
                                    ")" + b + ") : (" + u + ")((" + u + ")" + b + " - (" + u + ")" +
                                    a + ")");
            }
            return;
        }
        case I::Reinterpret: {
            check_type(t);
            const Type from = op->args[0].type();
            if (is_half_float(from)) {
                // The 16 bits of a float16 or bfloat16 (held as a float).
                id_ = assign(t, "as_" + type_name(t) + "(" + to_bits(from, arg(0)) + ")");
            } else if (is_half_float(t)) {
                id_ = assign(t, from_bits(t, "as_ushort(" + arg(0) + ")"));
            } else {
                id_ = assign(t, "as_" + type_name(t) + "(" + arg(0) + ")");
            }
            return;
        }
        case I::Sqrt:
            return call("sqrt");
        case I::Exp:
            return call("exp");
        case I::Log:
            return call("log");
        case I::Pow:
            return call("pow");
        case I::Sin:
            return call("sin");
        case I::Cos:
            return call("cos");
        case I::Tan:
            return call("tan");
        case I::Atan2:
            return call("atan2");
        case I::Fma:
            return call("fma");
        case I::Floor:
            return call("floor");
        case I::Ceil:
            return call("ceil");
        case I::Round:
            return call("rint");  // halves to even, as dsl's round
        case I::Trunc:
            return call("trunc");
        case I::IsNan:
            id_ = assign(t, "isnan(" + arg(0) + ") != 0");
            return;
        case I::Popcount:
            id_ = assign(t, "(" + type_name(t) + ")popcount(" + arg(0) + ")");
            return;
        case I::CountLeadingZeros:
            id_ = assign(t, "(" + type_name(t) + ")clz(" + arg(0) + ")");
            return;
        case I::CountTrailingZeros: {
            std::string a = arg(0);
            std::string u = type_name(t);
            id_ = assign(t, a + " == 0 ? (" + u + ")" + std::to_string(t.bits()) + " : (" + u +
                                ")popcount((" + u + ")((" + a + " & ((" + u + ")0 - " + a +
                                ")) - (" + u + ")1))");
            return;
        }
        case I::Likely:
        case I::PromiseClamped:
        case I::MemoizeTag:
        case I::StrictFloat:  // every operation is a statement of its own: never contracted
            id_ = arg(0);
            return;
        case I::Print:
            return print(op);
        case I::Require:
        case I::Trace:
            user_error << "GPU kernel " << kernel_
                       << " traces its Funcs or calls require(), which the OpenCL back end "
                          "cannot do from a kernel; trace or check a Func computed on the host.";
            return;
        default:
            user_error << "GPU kernel " << kernel_ << " uses the intrinsic " << op->name
                       << ", which the OpenCL back end does not support.";
    }
}

}  // namespace

/// 16-bit floats (float16, bfloat16) are held as floats inside kernels, rounded to their type
/// after every operation (as the CPU computes them: each operation in float, then rounded), and
/// stored in global memory as halves (vload_half / vstore_half, core OpenCL without cl_khr_fp16)
/// or as the upper 16 bits of a float.
constexpr const char *kHalfPrelude = R"(inline float dsl_round_f16(float x) {
    ushort h;
    vstore_half_rte(x, 0, (half *)&h);
    return vload_half(0, (const half *)&h);
}
inline ushort dsl_f16_bits(float x) {
    ushort h;
    vstore_half_rte(x, 0, (half *)&h);
    return h;
}
inline float dsl_f16_from_bits(ushort h) { return vload_half(0, (const half *)&h); }
inline float dsl_round_bf16(float x) {
    uint b = as_uint(x);
    if (isnan(x)) return as_float((b | 0x400000u) & 0xffff0000u);
    b += 0x7fffu + ((b >> 16) & 1u);
    return as_float(b & 0xffff0000u);
}
)";
/// A double (or an integer, through an exact double) to float16 or bfloat16, rounded once: to
/// float rounding to odd (the float's last bit records whether it was inexact), then to the
/// 16-bit type, which gives the correctly rounded result.
constexpr const char *kHalfFromDoublePrelude = R"(inline float dsl_to_odd_float(double x) {
    float f = (float)x;
    if ((double)f != x && !isinf(f)) {
        uint b = as_uint(f);
        if (fabs((double)f) > fabs(x)) b -= 1u;
        f = as_float(b | 1u);
    }
    return f;
}
inline float dsl_round_f16_d(double x) { return dsl_round_f16(dsl_to_odd_float(x)); }
inline float dsl_round_bf16_d(double x) { return dsl_round_bf16(dsl_to_odd_float(x)); }
)";

std::string compile_to_opencl_c(const std::vector<GPUKernel> &kernels, bool fp_contract) {
    std::ostringstream body;
    OpenCLPrinter printer(body);
    for (const GPUKernel &k : kernels)
        printer.kernel(k);
    std::ostringstream out;
    out << "/* OpenCL C generated by dsl */\n";
    out << "#pragma OPENCL FP_CONTRACT " << (fp_contract ? "ON" : "OFF") << "\n";
    if (printer.uses_double) out << "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
    out << kPrelude << "\n";
    if (printer.uses_half_floats) {
        out << kHalfPrelude;
        if (printer.uses_double) out << kHalfFromDoublePrelude;
        out << "\n";
    }
    out << body.str();
    return out.str();
}

}  // namespace dsl::codegen
