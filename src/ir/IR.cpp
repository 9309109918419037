#include "ir/IR.h"

#include "ir/Error.h"
#include "ir/Float16.h"
#include "ir/IROperator.h"

namespace dsl::ir {

namespace {

template <typename T>
T *new_node(Type t) {
    return new T(t);
}

}  // namespace

Expr IntImm::make(Type t, int64_t value) {
    internal_assert(t.is_int() && t.is_scalar()) << "IntImm of type " << t;
    auto *n = new_node<IntImm>(t);
    n->value = wrap_to_signed(value, t.bits());
    return n;
}

Expr UIntImm::make(Type t, uint64_t value) {
    internal_assert(t.is_uint() && t.is_scalar()) << "UIntImm of type " << t;
    auto *n = new_node<UIntImm>(t);
    n->value = wrap_to_unsigned(value, t.bits());
    return n;
}

Expr FloatImm::make(Type t, double value) {
    internal_assert(t.is_float() && t.is_scalar()) << "FloatImm of type " << t;
    auto *n = new_node<FloatImm>(t);
    n->value = round_to_float(value, t.bits(), t.is_bfloat());
    return n;
}

Expr StringImm::make(const std::string &value) {
    auto *n = new_node<StringImm>(Handle());
    n->value = value;
    return n;
}

Expr Cast::make(Type t, Expr value) {
    internal_assert(value.defined()) << "Cast of undefined";
    internal_assert(t.lanes() == value.type().lanes())
        << "Cast changes lanes: " << value.type() << " to " << t;
    auto *n = new_node<Cast>(t);
    n->value = std::move(value);
    return n;
}

Expr Variable::make(Type t, const std::string &name, Parameter param,
                    ReductionDomain reduction_domain) {
    internal_assert(!name.empty()) << "Variable with empty name";
    auto *n = new_node<Variable>(t);
    n->name = name;
    n->param = std::move(param);
    n->reduction_domain = std::move(reduction_domain);
    return n;
}

template <typename T, IRNodeType kType>
Expr BinaryNode<T, kType>::make(Expr a, Expr b) {
    internal_assert(a.defined() && b.defined()) << "binary node with undefined operand";
    internal_assert(a.type() == b.type()) << "binary node with mismatched types: " << a << " : "
                                          << a.type() << " vs " << b << " : " << b.type();
    if constexpr (kType == IRNodeType::And || kType == IRNodeType::Or) {
        internal_assert(a.type().is_bool()) << "logical operator on non-bool " << a.type();
    }
    auto *n = new T(a.type());
    n->a = std::move(a);
    n->b = std::move(b);
    return n;
}

template <typename T, IRNodeType kType>
Expr CompareNode<T, kType>::make(Expr a, Expr b) {
    internal_assert(a.defined() && b.defined()) << "comparison with undefined operand";
    internal_assert(a.type() == b.type())
        << "comparison with mismatched types: " << a.type() << " vs " << b.type();
    auto *n = new T(Bool(a.type().lanes()));
    n->a = std::move(a);
    n->b = std::move(b);
    return n;
}

template struct BinaryNode<Add, IRNodeType::Add>;
template struct BinaryNode<Sub, IRNodeType::Sub>;
template struct BinaryNode<Mul, IRNodeType::Mul>;
template struct BinaryNode<Div, IRNodeType::Div>;
template struct BinaryNode<Mod, IRNodeType::Mod>;
template struct BinaryNode<Min, IRNodeType::Min>;
template struct BinaryNode<Max, IRNodeType::Max>;
template struct BinaryNode<And, IRNodeType::And>;
template struct BinaryNode<Or, IRNodeType::Or>;
template struct CompareNode<EQ, IRNodeType::EQ>;
template struct CompareNode<NE, IRNodeType::NE>;
template struct CompareNode<LT, IRNodeType::LT>;
template struct CompareNode<LE, IRNodeType::LE>;
template struct CompareNode<GT, IRNodeType::GT>;
template struct CompareNode<GE, IRNodeType::GE>;

Expr Not::make(Expr a) {
    internal_assert(a.defined() && a.type().is_bool()) << "Not of non-bool";
    auto *n = new_node<Not>(a.type());
    n->a = std::move(a);
    return n;
}

Expr Select::make(Expr condition, Expr true_value, Expr false_value) {
    internal_assert(condition.defined() && true_value.defined() && false_value.defined())
        << "Select with undefined operand";
    internal_assert(condition.type().is_bool()) << "Select condition is " << condition.type();
    internal_assert(true_value.type() == false_value.type())
        << "Select of mismatched types " << true_value.type() << " and " << false_value.type();
    internal_assert(condition.type().is_scalar() ||
                    condition.type().lanes() == true_value.type().lanes())
        << "Select condition lanes " << condition.type() << " vs " << true_value.type();
    auto *n = new_node<Select>(true_value.type());
    n->condition = std::move(condition);
    n->true_value = std::move(true_value);
    n->false_value = std::move(false_value);
    return n;
}

Expr Load::make(Type t, const std::string &name, Expr index, Expr predicate,
                ModulusRemainder alignment) {
    internal_assert(index.defined() && predicate.defined()) << "Load of " << name;
    internal_assert(index.type().is_int() && index.type().lanes() == t.lanes())
        << "Load of " << name << " with index type " << index.type();
    internal_assert(predicate.type() == Bool(t.lanes())) << "Load predicate of " << name;
    auto *n = new_node<Load>(t);
    n->name = name;
    n->index = std::move(index);
    n->predicate = std::move(predicate);
    n->alignment = alignment;
    return n;
}

Expr Ramp::make(Expr base, Expr stride, int lanes) {
    internal_assert(base.defined() && stride.defined()) << "Ramp with undefined operand";
    internal_assert(base.type() == stride.type()) << "Ramp base and stride types differ";
    internal_assert(lanes > 1) << "Ramp of " << lanes << " lanes";
    auto *n = new_node<Ramp>(base.type().with_lanes(base.type().lanes() * lanes));
    n->base = std::move(base);
    n->stride = std::move(stride);
    n->lanes = lanes;
    return n;
}

Expr Broadcast::make(Expr value, int lanes) {
    internal_assert(value.defined()) << "Broadcast of undefined";
    internal_assert(lanes > 1) << "Broadcast to " << lanes << " lanes";
    auto *n = new_node<Broadcast>(value.type().with_lanes(value.type().lanes() * lanes));
    n->value = std::move(value);
    n->lanes = lanes;
    return n;
}

const char *Call::intrinsic_name(Intrinsic op) {
    switch (op) {
        case Intrinsic::None:
            return "none";
        case Intrinsic::BitwiseAnd:
            return "bitwise_and";
        case Intrinsic::BitwiseOr:
            return "bitwise_or";
        case Intrinsic::BitwiseXor:
            return "bitwise_xor";
        case Intrinsic::BitwiseNot:
            return "bitwise_not";
        case Intrinsic::ShiftLeft:
            return "shift_left";
        case Intrinsic::ShiftRight:
            return "shift_right";
        case Intrinsic::Abs:
            return "abs";
        case Intrinsic::Absd:
            return "absd";
        case Intrinsic::Reinterpret:
            return "reinterpret";
        case Intrinsic::Sqrt:
            return "sqrt";
        case Intrinsic::Exp:
            return "exp";
        case Intrinsic::Log:
            return "log";
        case Intrinsic::Pow:
            return "pow";
        case Intrinsic::Sin:
            return "sin";
        case Intrinsic::Cos:
            return "cos";
        case Intrinsic::Tan:
            return "tan";
        case Intrinsic::Atan2:
            return "atan2";
        case Intrinsic::Fma:
            return "fma";
        case Intrinsic::Floor:
            return "floor";
        case Intrinsic::Ceil:
            return "ceil";
        case Intrinsic::Round:
            return "round";
        case Intrinsic::Trunc:
            return "trunc";
        case Intrinsic::IsNan:
            return "is_nan";
        case Intrinsic::Likely:
            return "likely";
        case Intrinsic::BufferIsBoundsQuery:
            return "buffer_is_bounds_query";
        case Intrinsic::BufferSetBounds:
            return "buffer_set_bounds";
        case Intrinsic::Prefetch:
            return "prefetch";
        case Intrinsic::Print:
            return "print";
        case Intrinsic::Require:
            return "require";
        case Intrinsic::Trace:
            return "trace";
        case Intrinsic::Popcount:
            return "popcount";
        case Intrinsic::CountLeadingZeros:
            return "count_leading_zeros";
        case Intrinsic::CountTrailingZeros:
            return "count_trailing_zeros";
        case Intrinsic::Undef:
            return "undef";
        case Intrinsic::PromiseClamped:
            return "promise_clamped";
        case Intrinsic::Random:
            return "random";
        case Intrinsic::GPUBlockIndex:
            return "gpu_block_index";
        case Intrinsic::GPUThreadIndex:
            return "gpu_thread_index";
        case Intrinsic::GPULaunch:
            return "gpu_launch";
        case Intrinsic::GPUCopyToHost:
            return "gpu_copy_to_host";
        case Intrinsic::GPUSetHostDirty:
            return "gpu_set_host_dirty";
        case Intrinsic::GPUDeviceFree:
            return "gpu_device_free";
        case Intrinsic::GPUBarrier:
            return "gpu_barrier";
        case Intrinsic::StrictFloat:
            return "strict_float";
        case Intrinsic::ExternArg:
            return "extern_arg";
        case Intrinsic::ExternStage:
            return "extern_stage";
        case Intrinsic::ExternBoundsQuery:
            return "extern_bounds_query";
        case Intrinsic::MakeDescriptor:
            return "make_descriptor";
        case Intrinsic::AddressOf:
            return "address_of";
        case Intrinsic::MemoizeTag:
            return "memoize_tag";
        case Intrinsic::MemoizationLookup:
            return "memoization_lookup";
        case Intrinsic::MemoizationStore:
            return "memoization_store";
    }
    return "unknown";
}

Expr Call::make(Type t, Intrinsic op, std::vector<Expr> args) {
    for (const Expr &a : args)
        internal_assert(a.defined()) << "intrinsic with undefined arg";
    auto *n = new_node<Call>(t);
    n->name = intrinsic_name(op);
    n->args = std::move(args);
    n->call_type = CallType::Intrinsic;
    n->intrinsic = op;
    return n;
}

Expr Call::make(Type t, const std::string &name, std::vector<Expr> args, CallType call_type,
                int value_index, FunctionPtr func, Parameter param, Buffer<> image) {
    internal_assert(call_type != CallType::Intrinsic)
        << "intrinsics are made from their Intrinsic code, not by name (" << name << ")";
    for (const Expr &a : args)
        internal_assert(a.defined()) << "call to " << name << " with undefined arg";
    auto *n = new_node<Call>(t);
    n->name = name;
    n->args = std::move(args);
    n->call_type = call_type;
    n->value_index = value_index;
    n->func = std::move(func);
    n->param = std::move(param);
    n->image = std::move(image);
    return n;
}

Expr Call::with_args(std::vector<Expr> new_args) const {
    if (call_type == CallType::Intrinsic) return make(type, intrinsic, std::move(new_args));
    return make(type, name, std::move(new_args), call_type, value_index, func, param, image);
}

Expr Let::make(const std::string &name, Expr value, Expr body) {
    internal_assert(value.defined() && body.defined()) << "Let " << name << " with undefined part";
    auto *n = new_node<Let>(body.type());
    n->name = name;
    n->value = std::move(value);
    n->body = std::move(body);
    return n;
}

Expr Shuffle::make(std::vector<Expr> vectors, std::vector<int> indices) {
    internal_assert(!vectors.empty() && !indices.empty()) << "empty Shuffle";
    Type elem = vectors[0].type().element_of();
    int total = 0;
    for (const Expr &v : vectors) {
        internal_assert(v.defined() && v.type().element_of() == elem)
            << "Shuffle of vectors of different element types";
        total += v.type().lanes();
    }
    for (int i : indices)
        internal_assert(i >= 0 && i < total) << "Shuffle index " << i << " out of " << total;
    auto *n = new_node<Shuffle>(elem.with_lanes(static_cast<int>(indices.size())));
    n->vectors = std::move(vectors);
    n->indices = std::move(indices);
    return n;
}

Expr Shuffle::make_concat(std::vector<Expr> vectors) {
    if (vectors.size() == 1) return vectors[0];
    std::vector<int> indices;
    int total = 0;
    for (const Expr &v : vectors)
        total += v.type().lanes();
    for (int i = 0; i < total; i++)
        indices.push_back(i);
    return make(std::move(vectors), std::move(indices));
}

Expr Shuffle::make_interleave(std::vector<Expr> vectors) {
    if (vectors.size() == 1) return vectors[0];
    int lanes = vectors[0].type().lanes();
    int count = static_cast<int>(vectors.size());
    std::vector<int> indices;
    for (int i = 0; i < lanes; i++) {
        for (int v = 0; v < count; v++)
            indices.push_back(v * lanes + i);
    }
    return make(std::move(vectors), std::move(indices));
}

Expr Shuffle::make_slice(Expr vector, int begin, int stride, int lanes) {
    if (begin == 0 && stride == 1 && lanes == vector.type().lanes()) return vector;
    std::vector<int> indices;
    for (int i = 0; i < lanes; i++)
        indices.push_back(begin + i * stride);
    return make({std::move(vector)}, std::move(indices));
}

Expr Shuffle::make_extract_element(Expr vector, int lane) {
    return make_slice(std::move(vector), lane, 1, 1);
}

bool Shuffle::is_concat() const {
    int total = 0;
    for (const Expr &v : vectors)
        total += v.type().lanes();
    if (static_cast<int>(indices.size()) != total) return false;
    for (int i = 0; i < total; i++) {
        if (indices[i] != i) return false;
    }
    return true;
}

bool Shuffle::is_slice() const {
    if (vectors.size() != 1) return false;
    if (indices.size() < 2) return true;
    int stride = indices[1] - indices[0];
    for (size_t i = 1; i < indices.size(); i++) {
        if (indices[i] != indices[0] + static_cast<int>(i) * stride) return false;
    }
    return true;
}

Expr VectorReduce::make(Op op, Expr value, int lanes) {
    internal_assert(value.defined()) << "VectorReduce of undefined";
    internal_assert(lanes > 0 && value.type().lanes() % lanes == 0)
        << "VectorReduce of " << value.type() << " to " << lanes << " lanes";
    if (op == Op::And || op == Op::Or) {
        internal_assert(value.type().is_bool()) << "VectorReduce And/Or of non-bool";
    }
    auto *n = new_node<VectorReduce>(value.type().with_lanes(lanes));
    n->op = op;
    n->value = std::move(value);
    return n;
}

const char *to_string(ForType t) {
    switch (t) {
        case ForType::Serial:
            return "serial";
        case ForType::Parallel:
            return "parallel";
        case ForType::Vectorized:
            return "vectorized";
        case ForType::Unrolled:
            return "unrolled";
        case ForType::GPUBlock:
            return "gpu_block";
        case ForType::GPUThread:
            return "gpu_thread";
        case ForType::NPU:
            return "npu";
    }
    return "unknown";
}

const char *to_string(DeviceAPI d) {
    switch (d) {
        case DeviceAPI::None:
            return "none";
        case DeviceAPI::Host:
            return "host";
        case DeviceAPI::Default_GPU:
            return "default_gpu";
        case DeviceAPI::OpenCL:
            return "opencl";
        case DeviceAPI::CUDA:
            return "cuda";
        case DeviceAPI::NPU:
            return "npu";
    }
    return "unknown";
}

const char *to_string(MemoryType m) {
    switch (m) {
        case MemoryType::Auto:
            return "auto";
        case MemoryType::Heap:
            return "heap";
        case MemoryType::Stack:
            return "stack";
        case MemoryType::Register:
            return "register";
        case MemoryType::GPUShared:
            return "gpu_shared";
        case MemoryType::NPUBuffer:
            return "npu_buffer";
    }
    return "unknown";
}

Stmt LetStmt::make(const std::string &name, Expr value, Stmt body) {
    internal_assert(value.defined() && body.defined())
        << "LetStmt " << name << " with undefined part";
    auto *n = new LetStmt;
    n->name = name;
    n->value = std::move(value);
    n->body = std::move(body);
    return n;
}

Stmt AssertStmt::make(Expr condition, Expr message) {
    internal_assert(condition.defined() && condition.type().is_bool() &&
                    condition.type().is_scalar())
        << "AssertStmt condition must be a scalar bool";
    internal_assert(message.defined()) << "AssertStmt without message";
    auto *n = new AssertStmt;
    n->condition = std::move(condition);
    n->message = std::move(message);
    return n;
}

Stmt ProducerConsumer::make(const std::string &name, bool is_producer, Stmt body) {
    internal_assert(body.defined()) << "ProducerConsumer " << name << " without body";
    auto *n = new ProducerConsumer;
    n->name = name;
    n->is_producer = is_producer;
    n->body = std::move(body);
    return n;
}

Stmt For::make(const std::string &name, Expr min, Expr extent, ForType for_type,
               DeviceAPI device_api, Stmt body) {
    internal_assert(min.defined() && extent.defined() && body.defined())
        << "For " << name << " with undefined part";
    internal_assert(min.type().is_scalar() && min.type().is_int())
        << "For " << name << " min is " << min.type();
    internal_assert(extent.type() == min.type())
        << "For " << name << " min and extent types differ";
    auto *n = new For;
    n->name = name;
    n->min = std::move(min);
    n->extent = std::move(extent);
    n->for_type = for_type;
    n->device_api = device_api;
    n->body = std::move(body);
    return n;
}

Stmt Store::make(const std::string &name, Expr value, Expr index, Expr predicate,
                 ModulusRemainder alignment) {
    internal_assert(value.defined() && index.defined() && predicate.defined())
        << "Store to " << name;
    internal_assert(index.type().lanes() == value.type().lanes())
        << "Store to " << name << " lanes";
    internal_assert(predicate.type() == Bool(value.type().lanes()))
        << "Store predicate of " << name;
    auto *n = new Store;
    n->name = name;
    n->value = std::move(value);
    n->index = std::move(index);
    n->predicate = std::move(predicate);
    n->alignment = alignment;
    return n;
}

Stmt Provide::make(const std::string &name, std::vector<Expr> values, std::vector<Expr> args,
                   Expr predicate) {
    internal_assert(!values.empty()) << "Provide to " << name << " of no values";
    for (const Expr &v : values)
        internal_assert(v.defined()) << "Provide of undefined value to " << name;
    for (const Expr &a : args)
        internal_assert(a.defined()) << "Provide with undefined arg to " << name;
    internal_assert(predicate.defined()) << "Provide to " << name << " without predicate";
    auto *n = new Provide;
    n->name = name;
    n->values = std::move(values);
    n->args = std::move(args);
    n->predicate = std::move(predicate);
    return n;
}

Stmt Allocate::make(const std::string &name, Type type, MemoryType memory_type,
                    std::vector<Expr> extents, Expr condition, Stmt body) {
    for (const Expr &e : extents)
        internal_assert(e.defined() && e.type().is_scalar()) << "Allocate " << name << " extent";
    internal_assert(condition.defined() && body.defined())
        << "Allocate " << name << " with undefined part";
    auto *n = new Allocate;
    n->name = name;
    n->type = type;
    n->memory_type = memory_type;
    n->extents = std::move(extents);
    n->condition = std::move(condition);
    n->body = std::move(body);
    return n;
}

Stmt Free::make(const std::string &name) {
    auto *n = new Free;
    n->name = name;
    return n;
}

Stmt Realize::make(const std::string &name, std::vector<Type> types, MemoryType memory_type,
                   Region bounds, Expr condition, Stmt body) {
    for (const Range &r : bounds)
        internal_assert(r.min.defined() && r.extent.defined()) << "Realize " << name << " bounds";
    internal_assert(condition.defined() && body.defined())
        << "Realize " << name << " with undefined part";
    auto *n = new Realize;
    n->name = name;
    n->types = std::move(types);
    n->memory_type = memory_type;
    n->bounds = std::move(bounds);
    n->condition = std::move(condition);
    n->body = std::move(body);
    return n;
}

Stmt Block::make(Stmt first, Stmt rest) {
    internal_assert(first.defined() && rest.defined()) << "Block with undefined part";
    auto *n = new Block;
    n->first = std::move(first);
    n->rest = std::move(rest);
    return n;
}

Stmt Block::make(const std::vector<Stmt> &stmts) {
    Stmt result;
    for (auto it = stmts.rbegin(); it != stmts.rend(); ++it) {
        if (!it->defined()) continue;
        result = result.defined() ? make(*it, result) : *it;
    }
    return result;
}

Stmt IfThenElse::make(Expr condition, Stmt then_case, Stmt else_case) {
    internal_assert(condition.defined() && condition.type().is_bool() &&
                    condition.type().is_scalar())
        << "IfThenElse condition must be a scalar bool";
    internal_assert(then_case.defined()) << "IfThenElse without then case";
    auto *n = new IfThenElse;
    n->condition = std::move(condition);
    n->then_case = std::move(then_case);
    n->else_case = std::move(else_case);
    return n;
}

Stmt Atomic::make(const std::string &name, Stmt body) {
    internal_assert(body.defined()) << "Atomic of " << name << " without a body";
    auto *n = new Atomic;
    n->name = name;
    n->body = std::move(body);
    return n;
}

Stmt Evaluate::make(Expr value) {
    internal_assert(value.defined()) << "Evaluate of undefined";
    auto *n = new Evaluate;
    n->value = std::move(value);
    return n;
}

}  // namespace dsl::ir
