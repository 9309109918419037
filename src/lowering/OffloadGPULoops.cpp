#include "lowering/OffloadGPULoops.h"

#include <map>
#include <set>

#include "ir/Error.h"
#include "ir/FreeNames.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"
#include "ir/Scope.h"
#include "ir/Simplify.h"

namespace dsl::lowering {

using namespace ir;

namespace {

constexpr int kMaxGPUDims = 3;
/// The most storage a thread may hold (in registers or its local memory), in bytes.
constexpr int64_t kMaxThreadStorage = 16 * 1024;

/// The user's name of a loop: "f.s0.x_o" is loop x_o of stage 0 of Func f.
std::string describe_loop(const std::string &loop) {
    size_t stage = loop.find(".s");
    if (stage == std::string::npos) return "the loop \"" + loop + "\"";
    size_t dot = loop.find('.', stage + 2);
    if (dot == std::string::npos) return "the loop \"" + loop + "\"";
    std::string func = loop.substr(0, stage);
    std::string number = loop.substr(stage + 2, dot - stage - 2);
    std::string where = number == "0" ? "Func \"" + func + "\""
                                      : "update " + std::to_string(std::stoi(number) - 1) +
                                            " of Func \"" + func + "\"";
    return "the loop \"" + loop.substr(dot + 1) + "\" of " + where;
}

/// What a kernel body uses from the host: variables (with their types) and buffers.
class KernelClosure : public IRVisitor {
  public:
    std::vector<std::pair<std::string, Type>> scalars;
    std::map<std::string, KernelArgument> buffers;
    std::vector<std::string> buffer_order;

  protected:
    using IRVisitor::visit;
    void visit(const Variable *op) override {
        if (bound_.count(op->name) || seen_.count(op->name)) return;
        seen_.insert(op->name);
        scalars.push_back({op->name, op->type});
    }
    void visit(const Let *op) override {
        include(op->value);
        bound_.insert(op->name);
        include(op->body);
    }
    void visit(const LetStmt *op) override {
        include(op->value);
        bound_.insert(op->name);
        include(op->body);
    }
    void visit(const For *op) override {
        include(op->min);
        include(op->extent);
        bound_.insert(op->name);
        include(op->body);
    }
    void visit(const Allocate *op) override {
        for (const Expr &e : op->extents)
            include(e);
        include(op->condition);
        allocated_.insert(op->name);
        include(op->body);
    }
    void visit(const Load *op) override {
        use_buffer(op->name, op->type, false);
        IRVisitor::visit(op);
    }
    void visit(const Store *op) override {
        use_buffer(op->name, op->value.type(), true);
        IRVisitor::visit(op);
    }

  private:
    void use_buffer(const std::string &name, Type t, bool write) {
        if (allocated_.count(name)) return;
        Type stored = t.element_of();
        if (stored.is_bool()) stored = UInt(8);
        auto it = buffers.find(name);
        if (it == buffers.end()) {
            KernelArgument a;
            a.name = name;
            a.type = stored;
            a.is_buffer = true;
            it = buffers.emplace(name, a).first;
            buffer_order.push_back(name);
        }
        (write ? it->second.written : it->second.read) = true;
    }
    std::set<std::string> bound_, seen_, allocated_;
};

/// Names bound inside a statement (lets and loops), which a launch size must not use.
class BoundNames : public IRVisitor {
  public:
    std::set<std::string> names;

  protected:
    using IRVisitor::visit;
    void visit(const LetStmt *op) override {
        names.insert(op->name);
        IRVisitor::visit(op);
    }
    void visit(const Let *op) override {
        names.insert(op->name);
        IRVisitor::visit(op);
    }
    void visit(const For *op) override {
        names.insert(op->name);
        IRVisitor::visit(op);
    }
};

bool uses_any(const Expr &e, const std::set<std::string> &names) {
    for (const std::string &n : free_names(e, false))
        if (names.count(n)) return true;
    return false;
}

/// The deepest nesting of GPU thread loops in a statement, and how many outermost ones it has.
class ThreadNests : public IRVisitor {
  public:
    int max_depth = 0, nests = 0;

  protected:
    using IRVisitor::visit;
    void visit(const For *op) override {
        bool thread = op->for_type == ForType::GPUThread;
        if (thread) {
            if (depth_ == 0) nests++;
            depth_++;
            max_depth = std::max(max_depth, depth_);
        }
        IRVisitor::visit(op);
        if (thread) depth_--;
    }

  private:
    int depth_ = 0;
};

/// Turns the GPU loops of one kernel into lets of the block and thread indices, and finds the
/// launch sizes.
/// Checks the storage inside a kernel: each allocation is per thread (or per block), of a
/// constant size that fits.
class KernelStorage : public IRVisitor {
  public:
    explicit KernelStorage(const std::string &where) : where_(where) {}

  protected:
    using IRVisitor::visit;
    void visit(const Allocate *op) override {
        int64_t bytes = op->type.bytes();
        for (const Expr &e : op->extents) {
            auto c = as_const_int(e);
            user_assert(c.has_value())
                << "\"" << op->name << "\" is stored inside the GPU kernel of " << where_
                << " with a size known only at run time (" << e
                << "); storage inside a kernel needs a constant size. Split the loops it is "
                   "computed in by constants, or compute it at root.";
            bytes *= std::max<int64_t>(*c, 1);
        }
        user_assert(bytes <= kMaxThreadStorage)
            << "\"" << op->name << "\" is stored inside the GPU kernel of " << where_ << " in "
            << bytes << " bytes; each thread has room for " << kMaxThreadStorage
            << ". Compute it at a smaller loop, or at root.";
        user_assert(op->memory_type != MemoryType::GPUShared)
            << "\"" << op->name << "\" is stored in GPU shared memory (kernel of " << where_
            << "), which dsl does not generate yet; compute it at the thread level or at root.";
        IRVisitor::visit(op);
    }

  private:
    std::string where_;
};

class KernelBuilder : public IRMutator {
  public:
    /// The body of the kernel of the block loop nest at `op`.
    Stmt build(const For *op) {
        // The block loops and the lets between them, outermost first.
        std::vector<Stmt> layers;
        Stmt s = op;
        int block_count = 0;
        while (true) {
            if (const auto *f = s.as<For>(); f && f->for_type == ForType::GPUBlock) {
                layers.push_back(s);
                block_count++;
                s = f->body;
            } else if (const auto *l = s.as<LetStmt>()) {
                layers.push_back(s);
                s = l->body;
            } else {
                break;
            }
        }
        user_assert(block_count <= kMaxGPUDims)
            << describe_loop(op->name) << " starts a nest of " << block_count
            << " GPU block loops; a kernel has at most three dimensions of blocks. Fuse two of "
               "the loops (Func::fuse) or keep one serial.";
        where_ = describe_loop(op->name);
        BoundNames inside;
        inside.include(Stmt(op));
        inner_bound_ = inside.names;

        ThreadNests nests;
        nests.include(s);
        user_assert(nests.nests <= 1)
            << describe_loop(op->name) << " runs " << nests.nests
            << " separate nests of GPU thread loops in one kernel; they would need a barrier "
               "between them, which dsl does not generate yet. Compute the producers at root "
               "(each in its own kernel) instead.";
        user_assert(nests.max_depth <= kMaxGPUDims)
            << describe_loop(op->name) << " holds " << nests.max_depth
            << " nested GPU thread loops; a kernel has at most three dimensions of threads. "
               "Fuse two of the loops (Func::fuse) or keep one serial.";
        thread_dims_ = nests.max_depth;
        thread_extents_.assign(kMaxGPUDims, Expr(1));
        // Storage first: a run-time size also brings run-time checks, refused less clearly.
        KernelStorage storage(where_);
        storage.include(s);
        Stmt body = mutate(s);

        // Rebuild from the inside out; the innermost block loop is dimension 0.
        int dim = 0;
        block_extents_.assign(kMaxGPUDims, Expr(1));
        for (auto it = layers.rbegin(); it != layers.rend(); ++it) {
            if (const auto *l = it->as<LetStmt>()) {
                body = LetStmt::make(l->name, l->value, body);
                continue;
            }
            const auto *b = it->as<For>();
            user_assert(!uses_any(b->min, inner_bound_) && !uses_any(b->extent, inner_bound_))
                << describe_loop(b->name) << " is a GPU block loop whose bounds depend on "
                << "a loop or value inside the same kernel; block loops need bounds the host "
                   "knows before the launch. Reorder the loops so that the block loops are "
                   "outermost.";
            block_extents_[dim] = b->extent;
            Expr index = Call::make(Int(32), Call::Intrinsic::GPUBlockIndex, {Expr(dim)});
            body = LetStmt::make(b->name, b->min + index, body);
            dim++;
        }
        return body;
    }

    const std::vector<Expr> &blocks() const { return block_extents_; }
    const std::vector<Expr> &threads() const { return thread_extents_; }

  protected:
    using IRMutator::visit;
    Stmt visit(const For *op) override {
        if (op->for_type == ForType::GPUBlock) {
            user_error << describe_loop(op->name) << " is a GPU block loop inside the thread or "
                       << "serial loops of a kernel; block loops must be outside every other "
                          "loop of the kernel. Reorder the loops.";
        }
        if (op->for_type == ForType::Parallel) {
            user_error << describe_loop(op->name)
                       << " is a parallel loop inside a GPU kernel; the device runs the kernel's "
                          "threads in parallel already. Make it serial, or a gpu_threads loop.";
        }
        if (op->for_type != ForType::GPUThread) return IRMutator::visit(op);
        // The outermost thread loop is the highest dimension.
        int dim = thread_dims_ - 1 - depth_;
        depth_++;
        Stmt body = mutate(op->body);
        depth_--;
        // The launch's size along dim: the loop's extent if the host knows it, else a constant
        // bound of it; threads past the loop's end do nothing.
        Expr extent = simplify(op->extent);
        bool exact = true;
        if (uses_any(extent, inner_bound_)) {
            ConstantBounds b = constant_bounds(extent);
            user_assert(b.max.has_value())
                << describe_loop(op->name) << " is a GPU thread loop whose extent (" << extent
                << ") depends on the block or loop it is in and has no constant bound; a "
                   "launch needs one thread count for every block. Split the loop by a constant "
                   "(gpu_tile) instead.";
            extent = Expr(static_cast<int>(*b.max));
            exact = false;
        }
        Expr &launch = thread_extents_[dim];
        if (seen_dims_.count(dim) && !can_prove(launch == extent)) {
            launch = simplify(max(launch, extent));
            exact = false;
        } else if (!seen_dims_.count(dim)) {
            launch = extent;
        }
        seen_dims_.insert(dim);
        Expr index = Call::make(Int(32), Call::Intrinsic::GPUThreadIndex, {Expr(dim)});
        if (!exact) body = IfThenElse::make(index < op->extent, body, Stmt());
        return LetStmt::make(op->name, op->min + index, body);
    }

    Stmt visit(const AssertStmt *op) override {
        user_error << "The GPU kernel of " << where_ << " would check " << op->condition
                   << " at run time, which a kernel cannot report; this check comes from a "
                      "Func computed inside the kernel. Compute that Func at root instead.";
        return op;
    }
    Stmt visit(const Evaluate *op) override {
        // A CPU cache hint means nothing on a GPU.
        if (const auto *call = op->value.as<Call>();
            call && call->is_intrinsic(Call::Intrinsic::Prefetch))
            return Evaluate::make(Expr(0));
        return IRMutator::visit(op);
    }
    Expr visit(const Call *op) override {
        user_assert(!op->is_intrinsic(Call::Intrinsic::Print))
            << "The GPU kernel of " << where_
            << " prints (print(), print_when() or tracing), which dsl does not "
               "support inside kernels yet; print from a Func computed on the host.";
        user_assert(op->call_type == Call::CallType::Intrinsic)
            << "The GPU kernel of " << where_ << " calls \"" << op->name
            << "\", a function of the host, which a kernel cannot call.";
        return IRMutator::visit(op);
    }
    Stmt visit(const Block *op) override {
        // Storage flattening checks that an allocation's element count fits in int32 from its
        // bounds; inside a kernel, storage has constant extents (OpenCL C requires it), which
        // makes the check true, though the simplifier cannot see it from the bounds.
        const auto *check = op->first.as<AssertStmt>();
        const auto *alloc = op->rest.as<Allocate>();
        const auto *message = check ? check->message.as<Call>() : nullptr;
        if (message && alloc && message->name == "dsl_runtime_error_buffer_too_large") {
            int64_t elements = 1;
            bool constant = true;
            for (const Expr &e : alloc->extents) {
                auto c = as_const_int(e);
                constant = constant && c && *c >= 0 && *c <= 0x7fffffff;
                if (constant) elements *= *c;
                constant = constant && elements <= 0x7fffffff;
            }
            if (constant) return mutate(op->rest);
        }
        return IRMutator::visit(op);
    }

  private:
    std::set<std::string> inner_bound_;
    /// The block loop the kernel starts at, in the user's words (for errors).
    std::string where_;
    std::set<int> seen_dims_;
    std::vector<Expr> block_extents_, thread_extents_;
    int depth_ = 0, thread_dims_ = 0;
};

/// The names of the buffers a statement loads from or stores to, split by how.
class BufferUses : public IRVisitor {
  public:
    std::set<std::string> read, written;
    bool launches = false;

  protected:
    using IRVisitor::visit;
    void visit(const Load *op) override {
        read.insert(op->name);
        IRVisitor::visit(op);
    }
    void visit(const Store *op) override {
        written.insert(op->name);
        IRVisitor::visit(op);
    }
    void visit(const Call *op) override {
        launches |= op->is_intrinsic(Call::Intrinsic::GPULaunch);
        IRVisitor::visit(op);
    }
};

/// Replaces each outermost GPU block loop by a launch of a new kernel.
class Outliner : public IRMutator {
  public:
    Outliner(std::string function, std::vector<GPUKernel> &kernels)
        : function_(std::move(function)), kernels_(kernels) {}
    /// Every buffer a kernel uses.
    std::set<std::string> device_buffers;

  protected:
    using IRMutator::visit;
    Stmt visit(const For *op) override {
        if (op->for_type == ForType::GPUThread) {
            user_error << describe_loop(op->name)
                       << " is a GPU thread loop outside any GPU block loop; mark an outer "
                          "loop with gpu_blocks, or use gpu_tile, which makes both.";
        }
        if (op->for_type != ForType::GPUBlock) return IRMutator::visit(op);
        user_assert(op->device_api == DeviceAPI::Default_GPU ||
                    op->device_api == DeviceAPI::OpenCL || op->device_api == DeviceAPI::CUDA)
            << describe_loop(op->name) << " runs on " << to_string(op->device_api)
            << ", which dsl cannot generate kernels for.";

        KernelBuilder builder;
        Stmt body = builder.build(op);
        GPUKernel kernel;
        kernel.name =
            sanitized(function_ + "_" + op->name + "_k" + std::to_string(kernels_.size()));
        kernel.api = op->device_api;
        KernelClosure closure;
        closure.include(body);
        std::vector<Expr> launch = {StringImm::make(kernel.name)};
        for (const Expr &e : builder.blocks())
            launch.push_back(e);
        for (const Expr &e : builder.threads())
            launch.push_back(e);
        for (const std::string &b : closure.buffer_order) {
            kernel.args.push_back(closure.buffers.at(b));
            launch.push_back(Variable::make(Handle(), names::buffer_struct(b)));
            device_buffers.insert(b);
        }
        for (const auto &[name, type] : closure.scalars) {
            user_assert(!type.is_handle())
                << "The GPU kernel of " << describe_loop(op->name) << " uses \"" << name
                << "\", a handle, which a kernel cannot receive.";
            KernelArgument a;
            a.name = name;
            a.type = type;
            kernel.args.push_back(a);
            launch.push_back(Variable::make(type, name));
        }
        kernel.body = simplify(body);
        kernels_.push_back(kernel);
        return Evaluate::make(Call::make(Int(32), Call::Intrinsic::GPULaunch, launch));
    }

  private:
    static std::string sanitized(const std::string &name) {
        std::string r;
        for (char c : name)
            r += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
        return r;
    }
    std::string function_;
    std::vector<GPUKernel> &kernels_;
};

/// Keeps the host's copies coherent: host code that touches a buffer the kernels use copies it
/// back first and marks it host-dirty after writing it; allocations the kernels use get a
/// dsl_buffer_t and release their device memory at their end.
class HostSync : public IRMutator {
  public:
    explicit HostSync(const std::set<std::string> &device_buffers)
        : device_buffers_(device_buffers) {}

    Stmt mutate(const Stmt &s) override {
        BufferUses uses;
        uses.include(s);
        if (uses.launches) return IRMutator::mutate(s);
        // Host code only: copy back what it reads or writes, mark what it writes.
        std::vector<Stmt> before, after;
        std::set<std::string> touched = uses.read;
        touched.insert(uses.written.begin(), uses.written.end());
        for (const std::string &b : touched) {
            if (!device_buffers_.count(b)) continue;
            Expr buffer = Variable::make(Handle(), names::buffer_struct(b));
            before.push_back(
                Evaluate::make(Call::make(Int(32), Call::Intrinsic::GPUCopyToHost, {buffer})));
            if (uses.written.count(b)) {
                after.push_back(Evaluate::make(
                    Call::make(Int(32), Call::Intrinsic::GPUSetHostDirty, {buffer})));
            }
        }
        if (before.empty()) return s;
        Stmt result = s;
        for (auto it = before.rbegin(); it != before.rend(); ++it)
            result = Block::make(*it, result);
        for (const Stmt &a : after)
            result = Block::make(result, a);
        return result;
    }

  protected:
    using IRMutator::visit;
    Stmt visit(const Allocate *op) override {
        Stmt body = mutate(op->body);
        if (!device_buffers_.count(op->name)) {
            return Allocate::make(op->name, op->type, op->memory_type, op->extents, op->condition,
                                  body);
        }
        Expr elements = Expr(int64_t(1));
        for (const Expr &e : op->extents)
            elements = elements * cast(Int(64), e);
        Type stored = op->type.is_bool() ? UInt(8) : op->type;
        Expr buffer = Variable::make(Handle(), names::buffer_struct(op->name));
        Expr made = Call::make(
            Handle(), Call::Intrinsic::MakeBuffer,
            {Variable::make(Handle(), op->name), simplify(elements), Expr(stored.bytes())});
        Stmt release =
            Evaluate::make(Call::make(Int(32), Call::Intrinsic::GPUDeviceFree, {buffer}));
        body = LetStmt::make(names::buffer_struct(op->name), made, Block::make(body, release));
        return Allocate::make(op->name, op->type, op->memory_type, op->extents, op->condition,
                              body);
    }

  private:
    const std::set<std::string> &device_buffers_;
};

}  // namespace

Stmt offload_gpu_loops(const Stmt &s, const std::string &function,
                       std::vector<GPUKernel> &kernels) {
    Outliner outliner(function, kernels);
    Stmt result = outliner.mutate(s);
    if (outliner.device_buffers.empty()) return result;
    return HostSync(outliner.device_buffers).mutate(result);
}

}  // namespace dsl::lowering
