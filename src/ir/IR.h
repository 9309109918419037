#pragma once
/// The IR: every expression and statement node (DESIGN.md §3). Nodes are immutable once made;
/// `Expr` and `Stmt` are reference-counted handles. Build nodes with `Node::make(...)`, which
/// checks types; walk them with `IRVisitor` / `IRMutator`.

#include <memory>
#include <string>
#include <vector>

#include "dsl/Buffer.h"
#include "dsl/DeviceAPI.h"
#include "dsl/Expr.h"
#include "dsl/MemoryType.h"
#include "ir/FunctionPtr.h"
#include "ir/ModulusRemainder.h"
#include "ir/Parameter.h"
#include "ir/ReductionDomain.h"

namespace dsl::ir {

/// A handle to a statement.
class Stmt : public IntrusivePtr<const BaseStmtNode> {
  public:
    Stmt() = default;
    Stmt(const BaseStmtNode *n) : IntrusivePtr(n) {}  // NOLINT: implicit by design
    IRNodeType node_type() const { return get()->node_type; }
    template <typename T>
    const T *as() const {
        if (defined() && get()->node_type == T::kNodeType) return static_cast<const T *>(get());
        return nullptr;
    }
};

std::ostream &operator<<(std::ostream &os, const Stmt &s);

/// Whether more than one handle holds the node of `e`, so that a walk of a DAG may reach it
/// more than once. A node held once is reached once: walks that remember shared nodes (to stay
/// linear in what is in memory) skip remembering those.
inline bool held_more_than_once(const Expr &e) {
    return e.get()->ref_count.load(std::memory_order_relaxed) > 1;
}

template <typename T, IRNodeType kType>
struct ExprNode : BaseExprNode {
    static constexpr IRNodeType kNodeType = kType;
    explicit ExprNode(Type t) : BaseExprNode(kType, t) {}
};

template <typename T, IRNodeType kType>
struct StmtNode : BaseStmtNode {
    static constexpr IRNodeType kNodeType = kType;
    StmtNode() : BaseStmtNode(kType) {}
};

// ---------------------------------------------------------------------------------------------
// Constants

/// A signed integer constant; `value` is always within the range of `type` (narrow types wrap).
struct IntImm : ExprNode<IntImm, IRNodeType::IntImm> {
    using ExprNode::ExprNode;
    int64_t value = 0;
    static Expr make(Type t, int64_t value);
};

/// An unsigned integer (or bool) constant; `value` is within the range of `type`.
struct UIntImm : ExprNode<UIntImm, IRNodeType::UIntImm> {
    using ExprNode::ExprNode;
    uint64_t value = 0;
    static Expr make(Type t, uint64_t value);
};

/// A float constant; `value` is already rounded to `type` (float16, bfloat16, float32, float64).
struct FloatImm : ExprNode<FloatImm, IRNodeType::FloatImm> {
    using ExprNode::ExprNode;
    double value = 0;
    static Expr make(Type t, double value);
};

struct StringImm : ExprNode<StringImm, IRNodeType::StringImm> {
    using ExprNode::ExprNode;
    std::string value;
    static Expr make(const std::string &value);
};

// ---------------------------------------------------------------------------------------------
// Arithmetic and logic

/// Converts `value` to `type` (same lanes).
struct Cast : ExprNode<Cast, IRNodeType::Cast> {
    using ExprNode::ExprNode;
    Expr value;
    static Expr make(Type t, Expr value);
};

/// A named scalar or vector variable: a loop index, a let-bound name, a scalar parameter
/// (`param` defined) or a reduction variable (`reduction_domain` defined).
struct Variable : ExprNode<Variable, IRNodeType::Variable> {
    using ExprNode::ExprNode;
    std::string name;
    Parameter param;
    ReductionDomain reduction_domain;
    static Expr make(Type t, const std::string &name, Parameter param = {},
                     ReductionDomain reduction_domain = {});
};

/// Shared shape of the binary nodes: two operands of one type.
template <typename T, IRNodeType kType>
struct BinaryNode : ExprNode<T, kType> {
    using ExprNode<T, kType>::ExprNode;
    Expr a, b;
    /// Both operands must have the same type (use the user-facing operators for coercion).
    static Expr make(Expr a, Expr b);
};

struct Add : BinaryNode<Add, IRNodeType::Add> {
    using BinaryNode::BinaryNode;
};
struct Sub : BinaryNode<Sub, IRNodeType::Sub> {
    using BinaryNode::BinaryNode;
};
struct Mul : BinaryNode<Mul, IRNodeType::Mul> {
    using BinaryNode::BinaryNode;
};
/// Euclidean division for integers; x / 0 == 0.
struct Div : BinaryNode<Div, IRNodeType::Div> {
    using BinaryNode::BinaryNode;
};
/// Euclidean remainder for integers (never negative); x % 0 == 0.
struct Mod : BinaryNode<Mod, IRNodeType::Mod> {
    using BinaryNode::BinaryNode;
};
struct Min : BinaryNode<Min, IRNodeType::Min> {
    using BinaryNode::BinaryNode;
};
struct Max : BinaryNode<Max, IRNodeType::Max> {
    using BinaryNode::BinaryNode;
};

/// Comparisons produce bools with the operands' lanes.
template <typename T, IRNodeType kType>
struct CompareNode : ExprNode<T, kType> {
    using ExprNode<T, kType>::ExprNode;
    Expr a, b;
    static Expr make(Expr a, Expr b);
};

struct EQ : CompareNode<EQ, IRNodeType::EQ> {
    using CompareNode::CompareNode;
};
struct NE : CompareNode<NE, IRNodeType::NE> {
    using CompareNode::CompareNode;
};
struct LT : CompareNode<LT, IRNodeType::LT> {
    using CompareNode::CompareNode;
};
struct LE : CompareNode<LE, IRNodeType::LE> {
    using CompareNode::CompareNode;
};
struct GT : CompareNode<GT, IRNodeType::GT> {
    using CompareNode::CompareNode;
};
struct GE : CompareNode<GE, IRNodeType::GE> {
    using CompareNode::CompareNode;
};

/// Logical and/or of bools.
struct And : BinaryNode<And, IRNodeType::And> {
    using BinaryNode::BinaryNode;
};
struct Or : BinaryNode<Or, IRNodeType::Or> {
    using BinaryNode::BinaryNode;
};

struct Not : ExprNode<Not, IRNodeType::Not> {
    using ExprNode::ExprNode;
    Expr a;
    static Expr make(Expr a);
};

/// Lane-wise `condition ? true_value : false_value`. A scalar condition may select vectors.
struct Select : ExprNode<Select, IRNodeType::Select> {
    using ExprNode::ExprNode;
    Expr condition, true_value, false_value;
    static Expr make(Expr condition, Expr true_value, Expr false_value);
};

// ---------------------------------------------------------------------------------------------
// Memory and vectors

/// A load from the flat buffer `name` at `index` (one index per lane), where `predicate` holds.
struct Load : ExprNode<Load, IRNodeType::Load> {
    using ExprNode::ExprNode;
    std::string name;
    Expr index;
    Expr predicate;
    ModulusRemainder alignment;
    static Expr make(Type t, const std::string &name, Expr index, Expr predicate,
                     ModulusRemainder alignment = {});
};

/// The vector `base, base + stride, ..., base + (lanes - 1) * stride`.
struct Ramp : ExprNode<Ramp, IRNodeType::Ramp> {
    using ExprNode::ExprNode;
    Expr base, stride;
    int lanes = 0;
    static Expr make(Expr base, Expr stride, int lanes);
};

/// `value` repeated `lanes` times.
struct Broadcast : ExprNode<Broadcast, IRNodeType::Broadcast> {
    using ExprNode::ExprNode;
    Expr value;
    int lanes = 0;
    static Expr make(Expr value, int lanes);
};

/// A call: to a built-in intrinsic, an extern C function, a Func or an input image.
struct Call : ExprNode<Call, IRNodeType::Call> {
    using ExprNode::ExprNode;
    enum class CallType : uint8_t {
        Intrinsic,   ///< built into dsl; see `Intrinsic`
        PureExtern,  ///< a C function without side effects
        Extern,      ///< a C function that may have side effects
        Func,        ///< a value of a Func, before lowering turns it into loads
        Image,       ///< a value of an input buffer, before lowering turns it into loads
    };
    enum class Intrinsic : uint8_t {
        None,
        BitwiseAnd,
        BitwiseOr,
        BitwiseXor,
        BitwiseNot,
        ShiftLeft,
        ShiftRight,
        Abs,
        Absd,
        Reinterpret,
        Sqrt,
        Exp,
        Log,
        Pow,
        Sin,
        Cos,
        Tan,
        Atan2,
        Fma,  ///< (a, b, c): a * b + c rounded once
        Floor,
        Ceil,
        Round,
        Trunc,
        IsNan,
        Likely,  ///< an identity that marks the likely side of a condition for loop partitioning
        /// (e): e, its float operations rounded as written even where the target has
        /// fp_contract (no fused multiply-adds inside it).
        StrictFloat,
        /// (buffer): whether the dsl_buffer_t argument has no host memory, i.e. the caller asks
        /// which region the pipeline needs of it (a bounds query).
        BufferIsBoundsQuery,
        /// (buffer, dim, min, extent): writes min and extent into dimension `dim` of the
        /// dsl_buffer_t argument (the answer to a bounds query); 0. Has a side effect.
        BufferSetBounds,
        /// (element): a hint to bring the cache line holding `element` (a call of a Func or an
        /// input, a Load once storage is flattened) into the cache; its value is never read.
        /// 0. Kept like a side effect (Func::prefetch).
        Prefetch,
        /// (condition, format, v0, v1, ...): where `condition` holds (in any lane), writes one
        /// line: `format` (a StringImm) with each `{k}` replaced by value k (a vector as
        /// `<a, b, ...>`) and `{{` by `{`. Its value is v0 (0 without values). A side effect:
        /// print(), print_when() and the tracing of Func::trace_stores() and the like.
        Print,
        /// (condition, value, format, v0, v1, ...): `value`, where `condition` holds (in every
        /// lane); where it does not, the pipeline stops with dsl_error_requirement_failed and
        /// the message `format` makes of the values (as Print's). A side effect: require().
        Require,
        /// (event, func, parent_id, value_index, value, c0, c1, ...): one tracing event (a
        /// dsl_trace_event_t, runtime dsl_trace_event_code_t `event` for the Func or pipeline
        /// named by the StringImm `func`) handed to the runtime's trace handler. Loads and
        /// stores give the value and one coordinate per dimension (vectors of the value's lanes
        /// in a vectorized loop); other events give 0 as value and the region (min0, extent0,
        /// ...) as coordinates. A load's value is the value; other events' is the id the
        /// handler returned (int32). A side effect: the tracing of Func::trace_loads() and the
        /// like (lowering/Tracing.cpp).
        Trace,
        /// The number of set bits / of zero bits above the highest set bit / below the lowest
        /// set bit (the width for 0), of an integer; the type of the argument.
        Popcount,
        CountLeadingZeros,
        CountTrailingZeros,
        /// (): no value. As a whole value of an update it means that element is not stored
        /// (undef<T>()); lowering removes it and it appears nowhere else.
        Undef,
        /// (value, min, max): `value`, which the user promises lies in [min, max]
        /// (unsafe_promise_clamped): bounds inference takes that range; nothing checks it.
        PromiseClamped,
        /// (seed, number): a random variable of random_float() and the like (dsl/Random.h),
        /// uint32; the definition that holds it replaces it by a hash of the point's
        /// coordinates (lang/Random.h), so lowering never meets it.
        Random,
        /// (dim): the index of this GPU block / thread along launch dimension `dim` (0-2),
        /// int32. Only in GPU kernels.
        GPUBlockIndex,
        GPUThreadIndex,
        /// (kernel, blocks_x, blocks_y, blocks_z, threads_x, threads_y, threads_z, args...):
        /// runs the GPU kernel named by the StringImm `kernel` of the module over that grid;
        /// `args` are its arguments in order, a buffer as its `dsl_buffer_t *` (copied to the
        /// device first where the host holds newer data; marked device-dirty when written),
        /// then the bytes of each of its dynamic shared allocations (ir/Module.h).
        /// int32: 0 or an error code. A side effect.
        GPULaunch,
        /// (buffer): copies a `dsl_buffer_t *` back to the host if the device holds newer data;
        /// int32: 0 or an error code. A side effect.
        GPUCopyToHost,
        /// (buffer): marks the host's copy of a `dsl_buffer_t *` newer than the device's; 0.
        GPUSetHostDirty,
        /// (buffer): releases a `dsl_buffer_t *`'s device memory; 0. A side effect.
        GPUDeviceFree,
        /// (): waits until every thread of the GPU block gets here, and makes what each wrote to
        /// shared and global memory before it visible to all; 0. Only in GPU kernels, where
        /// every thread of the block reaches it (lowering/OffloadGPULoops.cpp).
        GPUBarrier,
        /// (kind, ...): one argument of an extern stage (Func::define_extern), inside its
        /// ExternStage value: (0, e) a scalar; (1, f(min...), f(max...)) a Func, called at the
        /// corners of the region the stage needs of it (ExternBoundsQuery coordinates), which is
        /// how bounds inference and the realization order see what it reads; (2, input(...)) an
        /// input buffer, called at the corners of the region the stage asks of it; (3, query)
        /// the ExternBoundsQuery of the stage's first output, whose answer is the region the
        /// stage computes (its dimension and bound set by lowering). Only inside ExternStage.
        ExternArg,
        /// (function, ExternArg...): the value of an extern stage's Func, whose stage is a call
        /// of the C function named by the StringImm `function` (built by lowering from these
        /// arguments, never evaluated).
        ExternStage,
        /// (function, func, k, d, want_max, query args...): int32, the min (want_max 0) or max of
        /// dimension `d` of the k-th argument's dsl_buffer_t after calling `function` on `query
        /// args` (scalars and MakeDescriptor buffers without host memory): the region the extern
        /// stage of Func `func` asks of that input (a bounds query). Returns from the pipeline
        /// with an error if the function's status is not 0.
        ExternBoundsQuery,
        /// (host, zero of the element type, d0.min, d0.extent, d0.stride, d1.min, ...): a
        /// `dsl_buffer_t *` on the stack describing that memory (host 0: a bounds query). Before
        /// storage flattening, `host` may be AddressOf(a call of a Func or an input) whose
        /// strides storage flattening fills in.
        MakeDescriptor,
        /// (element): the address of `element` (a call of a Func or an input, a Load once
        /// storage is flattened), a Handle.
        AddressOf,
        /// (value, key...): `value` (memoize_tag). In a memoized Func's definition it says
        /// what its cache key holds in place of what `value` reads: the keys, or `value`
        /// itself without keys. Lowering removes it from definitions (lowering/Memoization.cpp);
        /// elsewhere it is `value`.
        MemoizeTag,
        /// (func, key count K, k1..kK, buffer count N, b1..bN): looks up the realization of the
        /// memoized Func definition named by the StringImm `func` under the key values (each
        /// a scalar, as 64 bits) for the MakeDescriptor buffers b (one per value of a Tuple);
        /// on a hit copies it into them. int32: 0 for a hit, 1 for a miss. A side effect.
        MemoizationLookup,
        /// (func, has eviction key (int32 0 or 1), eviction key (an integer or handle), K, k1..kK,
        /// N, b1..bN): keeps copies of the buffers under the key; 0. A side effect.
        MemoizationStore,
    };

    std::string name;
    std::vector<Expr> args;
    CallType call_type = CallType::Intrinsic;
    Intrinsic intrinsic = Intrinsic::None;
    /// Which element of a Tuple-valued Func this call reads.
    int value_index = 0;
    /// The Func called (CallType::Func).
    FunctionPtr func;
    /// The input called (CallType::Image): an ImageParam or a concrete Buffer.
    Parameter param;
    Buffer<> image;

    static Expr make(Type t, Intrinsic op, std::vector<Expr> args);
    static Expr make(Type t, const std::string &name, std::vector<Expr> args, CallType call_type,
                     int value_index = 0, FunctionPtr func = {}, Parameter param = {},
                     Buffer<> image = {});

    /// The same call with other arguments (keeps the callee, value index and everything else).
    Expr with_args(std::vector<Expr> new_args) const;

    bool is_intrinsic(Intrinsic op) const {
        return call_type == CallType::Intrinsic && intrinsic == op;
    }
    /// Whether evaluating the call twice gives the same value and has no side effect.
    bool is_pure() const {
        if (call_type == CallType::Extern) return false;
        switch (intrinsic) {
            case Intrinsic::BufferSetBounds:
            case Intrinsic::Prefetch:
            case Intrinsic::Print:
            case Intrinsic::Require:
            case Intrinsic::Trace:
            case Intrinsic::GPULaunch:
            case Intrinsic::GPUCopyToHost:
            case Intrinsic::GPUSetHostDirty:
            case Intrinsic::GPUDeviceFree:
            case Intrinsic::GPUBarrier:
            case Intrinsic::MakeDescriptor:
            case Intrinsic::ExternStage:
            case Intrinsic::MemoizationLookup:
            case Intrinsic::MemoizationStore:
                return false;
            default:
                return true;
        }
    }
    /// The name an intrinsic prints as, e.g. "shift_left".
    static const char *intrinsic_name(Intrinsic op);
};

/// `let name = value in body`.
struct Let : ExprNode<Let, IRNodeType::Let> {
    using ExprNode::ExprNode;
    std::string name;
    Expr value, body;
    static Expr make(const std::string &name, Expr value, Expr body);
};

/// Builds a vector from lanes of other vectors: the concatenation of `vectors`, indexed by
/// `indices`.
struct Shuffle : ExprNode<Shuffle, IRNodeType::Shuffle> {
    using ExprNode::ExprNode;
    std::vector<Expr> vectors;
    std::vector<int> indices;
    static Expr make(std::vector<Expr> vectors, std::vector<int> indices);
    static Expr make_concat(std::vector<Expr> vectors);
    /// Lane i of the result is lane i / n of vector i % n.
    static Expr make_interleave(std::vector<Expr> vectors);
    static Expr make_slice(Expr vector, int begin, int stride, int lanes);
    static Expr make_extract_element(Expr vector, int lane);
    bool is_concat() const;
    bool is_slice() const;
    int slice_begin() const { return indices[0]; }
    int slice_stride() const { return indices.size() > 1 ? indices[1] - indices[0] : 1; }
};

/// Reduces groups of adjacent lanes of `value` to produce a vector of `lanes` lanes; each
/// output lane combines `value.lanes / lanes` consecutive input lanes.
struct VectorReduce : ExprNode<VectorReduce, IRNodeType::VectorReduce> {
    using ExprNode::ExprNode;
    enum class Op : uint8_t { Add, Mul, Min, Max, And, Or };
    Op op = Op::Add;
    Expr value;
    static Expr make(Op op, Expr value, int lanes);
};

// ---------------------------------------------------------------------------------------------
// Statements

/// How a loop runs.
enum class ForType : uint8_t { Serial, Parallel, Vectorized, Unrolled, GPUBlock, GPUThread, NPU };
/// Where a loop's body runs.
using dsl::DeviceAPI;
/// Where an allocation lives.
using dsl::MemoryType;

const char *to_string(ForType t);
const char *to_string(DeviceAPI d);
const char *to_string(MemoryType m);

/// A half-open range `[min, min + extent)` (the public dsl::Range).
using Range = dsl::Range;
using Region = dsl::Region;

struct LetStmt : StmtNode<LetStmt, IRNodeType::LetStmt> {
    std::string name;
    Expr value;
    Stmt body;
    static Stmt make(const std::string &name, Expr value, Stmt body);
};

/// Fails with `message` (an Expr, usually a call that formats an error) if `condition` is false.
struct AssertStmt : StmtNode<AssertStmt, IRNodeType::AssertStmt> {
    Expr condition, message;
    static Stmt make(Expr condition, Expr message);
};

/// Marks the part of the loop nest that produces (`is_producer`) or consumes the Func `name`.
struct ProducerConsumer : StmtNode<ProducerConsumer, IRNodeType::ProducerConsumer> {
    std::string name;
    bool is_producer = true;
    Stmt body;
    static Stmt make(const std::string &name, bool is_producer, Stmt body);
};

/// `for name in [min, min + extent)`.
struct For : StmtNode<For, IRNodeType::For> {
    std::string name;
    Expr min, extent;
    ForType for_type = ForType::Serial;
    DeviceAPI device_api = DeviceAPI::None;
    Stmt body;
    static Stmt make(const std::string &name, Expr min, Expr extent, ForType for_type,
                     DeviceAPI device_api, Stmt body);
};

/// Stores `value` into the flat buffer `name` at `index` where `predicate` holds.
struct Store : StmtNode<Store, IRNodeType::Store> {
    std::string name;
    Expr value, index, predicate;
    ModulusRemainder alignment;
    static Stmt make(const std::string &name, Expr value, Expr index, Expr predicate,
                     ModulusRemainder alignment = {});
};

/// Writes `values` (one per Tuple element) to the multi-dimensional Func `name` at `args`.
/// Exists only before storage flattening.
struct Provide : StmtNode<Provide, IRNodeType::Provide> {
    std::string name;
    std::vector<Expr> values, args;
    Expr predicate;
    static Stmt make(const std::string &name, std::vector<Expr> values, std::vector<Expr> args,
                     Expr predicate);
};

/// Allocates the flat buffer `name` of `type` with the product of `extents` elements, live in
/// `body`, if `condition` holds.
struct Allocate : StmtNode<Allocate, IRNodeType::Allocate> {
    std::string name;
    Type type;
    MemoryType memory_type = MemoryType::Auto;
    std::vector<Expr> extents;
    Expr condition;
    Stmt body;
    static Stmt make(const std::string &name, Type type, MemoryType memory_type,
                     std::vector<Expr> extents, Expr condition, Stmt body);
};

struct Free : StmtNode<Free, IRNodeType::Free> {
    std::string name;
    static Stmt make(const std::string &name);
};

/// Allocates the multi-dimensional Func `name` over `bounds` for `body`. Exists only before
/// storage flattening.
struct Realize : StmtNode<Realize, IRNodeType::Realize> {
    std::string name;
    std::vector<Type> types;
    MemoryType memory_type = MemoryType::Auto;
    Region bounds;
    Expr condition;
    Stmt body;
    static Stmt make(const std::string &name, std::vector<Type> types, MemoryType memory_type,
                     Region bounds, Expr condition, Stmt body);
};

/// `first; rest`.
struct Block : StmtNode<Block, IRNodeType::Block> {
    Stmt first, rest;
    static Stmt make(Stmt first, Stmt rest);
    /// Chains the defined statements of `stmts` into nested blocks; undefined if none is.
    static Stmt make(const std::vector<Stmt> &stmts);
};

struct IfThenElse : StmtNode<IfThenElse, IRNodeType::IfThenElse> {
    Expr condition;
    Stmt then_case, else_case;  // else_case may be undefined
    static Stmt make(Expr condition, Stmt then_case, Stmt else_case = Stmt());
};

/// The stores to the buffer `name` inside `body` each update one element indivisibly (an atomic
/// read-modify-write), as iterations running at the same time may update the same element: the
/// parallel or GPU loops over RVars of a stage scheduled atomic().
struct Atomic : StmtNode<Atomic, IRNodeType::Atomic> {
    std::string name;
    Stmt body;
    static Stmt make(const std::string &name, Stmt body);
};

/// Evaluates an expression for its side effects (usually an extern call).
struct Evaluate : StmtNode<Evaluate, IRNodeType::Evaluate> {
    Expr value;
    static Stmt make(Expr value);
};

}  // namespace dsl::ir
