#include "lowering/OffloadGPULoops.h"

#include <map>
#include <optional>
#include <set>

#include "ir/Error.h"
#include "ir/FreeNames.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"
#include "ir/Scope.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lowering/ConstantUpperBound.h"

namespace dsl::lowering {

using namespace ir;

namespace {

constexpr int kMaxGPUDims = 3;
/// The most storage a thread may hold (in registers or its local memory), in bytes.
constexpr int64_t kMaxThreadStorage = 16 * 1024;
/// The most threads a block may have (CUDA's limit, and most OpenCL devices').
constexpr int64_t kMaxThreadsPerBlock = 1024;
/// The most shared memory a block may use, in bytes: what CUDA GPUs give a kernel statically
/// (OpenCL devices say what they have; a driver refuses a kernel that needs more).
constexpr int64_t kMaxSharedStorage = 48 * 1024;

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

bool uses_any(const Expr &e, const std::set<std::string> &names) {
    for (const std::string &n : free_names(e, false))
        if (names.count(n)) return true;
    return false;
}

/// The deepest nesting of GPU thread loops in a statement.
class ThreadNests : public IRVisitor {
  public:
    int max_depth = 0;

  protected:
    using IRVisitor::visit;
    void visit(const For *op) override {
        bool thread = op->for_type == ForType::GPUThread;
        if (thread) {
            depth_++;
            max_depth = std::max(max_depth, depth_);
        }
        IRVisitor::visit(op);
        if (thread) depth_--;
    }

  private:
    int depth_ = 0;
};

/// What a kernel's code knows of its values: the lets around a point (their values, for
/// sizes written in terms of them) and the constant bounds of its loop variables.
class KernelFacts {
  public:
    void push_let(const std::string &name, const Expr &value) { lets_.push_back({name, value}); }
    void pop_let() { lets_.pop_back(); }
    void push_loop(const std::string &name, const Expr &min, const Expr &extent) {
        ConstantBounds lo = bounds_of(min), hi = bounds_of(simplify(min + extent - 1));
        loops_.push(name, ConstantBounds{lo.min, hi.max});
    }
    void pop_loop(const std::string &name) { loops_.pop(name); }

    /// `e` with the lets in scope substituted (innermost first), simplified.
    Expr expand(const Expr &e) const {
        Expr r = e;
        for (auto it = lets_.rbegin(); it != lets_.rend(); ++it) {
            if (expr_uses_var(r, it->first)) r = substitute(it->first, it->second, r);
        }
        return simplify(r);
    }
    ConstantBounds bounds_of(const Expr &e) const {
        Expr x = expand(e);
        ConstantBounds b = constant_bounds(x, loops_);
        // The simplifier's maximum, or a tighter one where differences taken apart give it (a
        // tile at a reduction's last partial step), or one where the simplifier has none.
        b.max = constant_upper_bound(x, loops_);
        return b;
    }
    /// An upper bound of `e` that the host can evaluate before the launch: in the names that
    /// `known` accepts (a tile's size a Param gives), or a constant.
    std::optional<Expr> host_bound_of(const Expr &e, const HostKnown &known) const {
        return host_upper_bound(expand(e), loops_, known);
    }

  private:
    std::vector<std::pair<std::string, Expr>> lets_;
    Scope<ConstantBounds> loops_;
};

/// Whether a statement holds GPU thread loops, and whether it stores to memory.
struct StmtContents : IRVisitor {
    bool threads = false, stores = false;
    explicit StmtContents(const Stmt &s) { include(s); }

  protected:
    using IRVisitor::visit;
    void visit(const For *op) override {
        threads |= op->for_type == ForType::GPUThread;
        IRVisitor::visit(op);
    }
    void visit(const Store *op) override {
        stores = true;
        IRVisitor::visit(op);
    }
};

/// The buffers a statement loads and stores. A call that is not pure (a print, a barrier)
/// counts as a store to every buffer, "*".
struct BufferAccesses : IRVisitor {
    std::set<std::string> loaded, stored;
    explicit BufferAccesses(const Stmt &s) { include(s); }
    /// Whether the threads of `later` must wait for those of this statement: `later` reads
    /// what this wrote, or writes what this read or wrote.
    bool conflicts_with(const BufferAccesses &later) const {
        if (stored.count("*") || later.stored.count("*")) return true;
        for (const std::string &name : stored)
            if (later.loaded.count(name) || later.stored.count(name)) return true;
        for (const std::string &name : later.stored)
            if (loaded.count(name)) return true;
        return false;
    }

  protected:
    using IRVisitor::visit;
    void visit(const Load *op) override {
        loaded.insert(op->name);
        IRVisitor::visit(op);
    }
    void visit(const Store *op) override {
        stored.insert(op->name);
        IRVisitor::visit(op);
    }
    void visit(const Call *op) override {
        if (!op->is_pure()) stored.insert("*");
        IRVisitor::visit(op);
    }
};

/// Whether the iterations of the loop `op` (around thread loops) may need a barrier between
/// them: one reads what another wrote or writes what another read, or two may write one
/// element (a store whose index does not change with the loop).
bool iterations_conflict(const For *op) {
    BufferAccesses a(op->body);
    if (a.stored.count("*")) return true;
    for (const std::string &name : a.stored)
        if (a.loaded.count(name)) return true;
    struct FixedStore : IRVisitor {
        std::set<std::string> varying;  // the loop's variable and the lets that use it
        bool found = false;
        explicit FixedStore(const std::string &loop) { varying.insert(loop); }
        bool varies(const Expr &e) const {
            for (const std::string &name : varying)
                if (expr_uses_var(e, name)) return true;
            return false;
        }
        using IRVisitor::visit;
        void visit(const LetStmt *l) override {
            if (varies(l->value)) varying.insert(l->name);
            IRVisitor::visit(l);
        }
        void visit(const Let *l) override {
            if (varies(l->value)) varying.insert(l->name);
            IRVisitor::visit(l);
        }
        void visit(const Store *st) override {
            found |= !varies(st->index);
            IRVisitor::visit(st);
        }
    } fixed(op->name);
    fixed.include(op->body);
    return fixed.found;
}

/// Whether `op` is the buffer_too_large check that storage flattening puts before an
/// allocation.
bool is_size_check(const Stmt &s) {
    const auto *check = s.as<AssertStmt>();
    const auto *message = check ? check->message.as<Call>() : nullptr;
    return message && message->name == "dsl_runtime_error_buffer_too_large";
}

/// Turns the GPU loops of one kernel into lets of the block and thread indices, and finds the
/// launch sizes. Every thread of a block runs the code at the block level (inside the block
/// loops, outside the thread loops): each nest of thread loops there runs on the threads its
/// loops need (the launch has as many as the largest nest), statements that store outside any
/// thread loop run on thread 0 alone, and a barrier goes before each part that reads what the
/// parts since the last barrier wrote or writes what they read (wait_before). Storage allocated
/// at the block level is shared by the block's threads (GPU shared memory); storage inside the
/// thread loops is each thread's own.
class KernelBuilder : public IRMutator {
  public:
    /// The body of the kernel of the block loop nest at `op`.
    Stmt build(const For *op) {
        since_barrier_.reset();
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
                facts_.push_let(l->name, l->value);
                s = l->body;
            } else {
                break;
            }
        }
        where_ = describe_loop(op->name);
        user_assert(block_count <= kMaxGPUDims)
            << where_ << " starts a nest of " << block_count
            << " GPU block loops; a kernel has at most three dimensions of blocks. Fuse two of "
               "the loops (Func::fuse) or keep one serial.";
        // Names bound inside, which a launch size must not use.
        inner_bound_ = bound_names(Stmt(op));

        ThreadNests nests;
        nests.include(s);
        user_assert(nests.max_depth <= kMaxGPUDims)
            << where_ << " holds " << nests.max_depth
            << " nested GPU thread loops; a kernel has at most three dimensions of threads. "
               "Fuse two of the loops (Func::fuse) or keep one serial.";
        thread_dims_ = nests.max_depth;
        thread_extents_.assign(kMaxGPUDims, Expr(1));
        launch_sizes(s);
        int64_t threads = 1;
        for (const Expr &e : thread_extents_)
            threads *= as_const_int(e).value_or(1);
        user_assert(threads <= kMaxThreadsPerBlock)
            << where_ << " starts a GPU kernel whose blocks have " << threads << " threads ("
            << thread_extents_[0] << " x " << thread_extents_[1] << " x " << thread_extents_[2]
            << "); GPUs run at most " << kMaxThreadsPerBlock
            << " per block. Use smaller gpu_tile sizes or gpu_threads loops.";
        Stmt body = thread_dims_ > 0 ? block_level(s) : mutate(s);

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
    const std::vector<DynamicSharedAllocation> &dynamic_shared() const { return dynamic_shared_; }

  protected:
    using IRMutator::visit;

    /// The launch's thread count along each dimension: for each, the largest extent of the
    /// thread loops on it (a constant bound of it where the host cannot compute it).
    void launch_sizes(const Stmt &s) {
        struct Sizes : IRVisitor {
            KernelBuilder &kb;
            std::set<int> seen;
            int depth = 0, nest_depth = 0;
            explicit Sizes(KernelBuilder &b) : kb(b) {}
            using IRVisitor::visit;
            void visit(const LetStmt *op) override {
                include(op->value);
                kb.facts_.push_let(op->name, op->value);
                include(op->body);
                kb.facts_.pop_let();
            }
            void visit(const For *op) override {
                kb.facts_.push_loop(op->name, op->min, op->extent);
                if (op->for_type == ForType::GPUThread) {
                    if (depth == 0) nest_depth = nest_depth_of(op);
                    int dim = nest_depth - 1 - depth;
                    Expr extent = kb.launch_extent(op);
                    Expr &launch = kb.thread_extents_[dim];
                    launch = seen.count(dim) ? simplify(max(launch, extent)) : extent;
                    seen.insert(dim);
                    depth++;
                    include(op->body);
                    depth--;
                } else {
                    include(op->body);
                }
                kb.facts_.pop_loop(op->name);
            }
        } sizes(*this);
        sizes.include(s);
    }

    static int nest_depth_of(const For *op) {
        ThreadNests n;
        n.include(Stmt(op));
        return n.max_depth;
    }

    /// The number of threads a thread loop needs: its extent if the host knows it before the
    /// launch, else a constant bound of it.
    Expr launch_extent(const For *op) const {
        Expr extent = simplify(op->extent);
        if (!uses_any(extent, inner_bound_)) return extent;
        ConstantBounds b = facts_.bounds_of(extent);
        if (b.max) return Expr(static_cast<int>(*b.max));
        // A bound the host computes (a producer's footprint over a tile of a Param's size).
        std::optional<Expr> bound = facts_.host_bound_of(extent, host_known());
        user_assert(bound.has_value())
            << describe_loop(op->name) << " is a GPU thread loop whose extent (" << extent
            << ") depends on the block or loop it is in and has no bound that the host knows "
               "before the launch; a launch needs one thread count for every block. Split the "
               "loop by a constant (gpu_tile) instead.";
        return *bound;
    }
    /// Whether the host can evaluate an expression before the launch.
    HostKnown host_known() const {
        return [this](const Expr &e) { return !uses_any(e, inner_bound_); };
    }

    Expr thread_index(int dim) const {
        return Call::make(Int(32), Call::Intrinsic::GPUThreadIndex, {Expr(dim)});
    }
    Stmt barrier() const {
        return Evaluate::make(Call::make(Int(32), Call::Intrinsic::GPUBarrier, {}));
    }

    /// The code at the block level, which every thread of the block runs.
    Stmt block_level(const Stmt &s) {
        StmtContents contents(s);
        if (!contents.threads) {
            Stmt m = mutate(s);
            if (contents.stores) {
                // One thread stores; the others would race to store the same values.
                Expr first = thread_index(0) == 0;
                for (int d = 1; d < thread_dims_; d++)
                    first = first && thread_index(d) == 0;
                m = IfThenElse::make(first, m, Stmt());
            }
            return wait_before(BufferAccesses(s), m);
        }
        if (const auto *f = s.as<For>()) {
            if (f->for_type == ForType::GPUThread) return wait_before(BufferAccesses(s), mutate(s));
            user_assert(f->for_type == ForType::Serial || f->for_type == ForType::Unrolled)
                << describe_loop(f->name) << " is a " << to_string(f->for_type)
                << " loop around GPU thread loops in the kernel of " << where_
                << "; around thread loops, a loop must be serial. Make it serial, or move the "
                   "thread loops out of it.";
            // What ran before the loop and does not conflict with the loop as a whole conflicts
            // with no part of it: the body starts with nothing to wait for.
            BufferAccesses whole(s);
            bool wait = since_barrier_ && since_barrier_->conflicts_with(whole);
            std::optional<BufferAccesses> before = wait ? std::nullopt : since_barrier_;
            since_barrier_.reset();
            facts_.push_loop(f->name, f->min, f->extent);
            Stmt body = block_level(f->body);
            facts_.pop_loop(f->name);
            // The next iteration may overwrite what this one's threads still read, or read what
            // this one's threads wrote. Not so where no iteration reads what the loop writes (a
            // producer's tile loaded in rows by fewer threads than it has): the iterations
            // then need no barrier between them, only one before what reads the tile.
            if (iterations_conflict(f)) body = Block::make(body, barrier());
            // After the loop (which may run no iteration), what ran before it and in it.
            since_barrier_ = before;
            record(whole);
            Stmt loop = For::make(f->name, f->min, f->extent, ForType::Serial, f->device_api, body);
            return wait ? Block::make(barrier(), loop) : loop;
        }
        if (const auto *l = s.as<LetStmt>()) {
            facts_.push_let(l->name, l->value);
            Stmt body = block_level(l->body);
            facts_.pop_let();
            return LetStmt::make(l->name, mutate(l->value), body);
        }
        if (const auto *a = s.as<Allocate>()) return shared(a);
        if (const auto *pc = s.as<ProducerConsumer>())
            return ProducerConsumer::make(pc->name, pc->is_producer, block_level(pc->body));
        if (const auto *i = s.as<IfThenElse>()) {
            // The condition is the same for the block's threads (no thread index is bound
            // here), so barriers inside a branch are met by all of them or none.
            BufferAccesses whole(s);
            bool wait = since_barrier_ && since_barrier_->conflicts_with(whole);
            if (wait) since_barrier_.reset();
            std::optional<BufferAccesses> before = since_barrier_;
            Stmt then_case = block_level(i->then_case);
            since_barrier_ = before;
            Stmt else_case = i->else_case.defined() ? block_level(i->else_case) : Stmt();
            since_barrier_ = before;
            record(whole);
            Stmt branch = IfThenElse::make(mutate(i->condition), then_case, else_case);
            return wait ? Block::make(barrier(), branch) : branch;
        }
        if (s.as<Block>()) {
            std::vector<Stmt> parts;
            std::vector<Stmt> pending = {s};
            while (!pending.empty()) {
                Stmt p = pending.back();
                pending.pop_back();
                if (const auto *b = p.as<Block>()) {
                    pending.push_back(b->rest);
                    pending.push_back(b->first);
                } else {
                    parts.push_back(p);
                }
            }
            Stmt result;
            for (size_t i = 0; i < parts.size(); i++) {
                // The size check of a shared allocation: its size is a constant that fits.
                if (is_size_check(parts[i]) && i + 1 < parts.size() && parts[i + 1].as<Allocate>())
                    continue;
                Stmt part = block_level(parts[i]);
                result = result.defined() ? Block::make(result, part) : part;
            }
            return result;
        }
        return wait_before(BufferAccesses(s), mutate(s));
    }

    /// A barrier before `built` (the code of a part of the block level that reads or writes
    /// `accesses`) where it conflicts with what ran since the last barrier: it reads what that
    /// wrote, or writes what that read or wrote. A tile of A and one of B then load one after
    /// the other without one, and the products that read them wait.
    Stmt wait_before(const BufferAccesses &accesses, const Stmt &built) {
        bool wait = since_barrier_ && since_barrier_->conflicts_with(accesses);
        if (wait) since_barrier_.reset();
        record(accesses);
        return wait ? Block::make(barrier(), built) : built;
    }
    void record(const BufferAccesses &accesses) {
        if (!since_barrier_) {
            since_barrier_ = accesses;
            return;
        }
        since_barrier_->loaded.insert(accesses.loaded.begin(), accesses.loaded.end());
        since_barrier_->stored.insert(accesses.stored.begin(), accesses.stored.end());
    }

    /// The constant number of elements storage inside the kernel needs (its bound where the
    /// size varies), checked against `limit` bytes.
    int64_t storage_elements(const Allocate *op, int64_t limit, const char *what) const {
        // Each extent bounded alone (a product of sizes is bounded by the product of bounds).
        int64_t elements = 1;
        bool constant = true, bounded = true;
        Expr size = Expr(int64_t(1));
        for (const Expr &e : op->extents) {
            ConstantBounds b = facts_.bounds_of(e);
            constant = constant && as_const_int(facts_.expand(e)).has_value();
            bounded = bounded && b.max.has_value();
            if (b.max)
                elements = std::min<int64_t>(elements * std::max<int64_t>(*b.max, 1), kLooseBound);
            size = size * cast(Int(64), facts_.expand(e));
        }
        int64_t bytes = elements * op->type.bytes();
        user_assert(bounded && (constant || bytes <= limit))
            << "\"" << op->name << "\" is stored inside the GPU kernel of " << where_
            << " with a size known only at run time (" << simplify(size)
            << " elements); storage inside a kernel needs a constant size, or a small constant "
               "bound of it. Split the loops it is computed in by constants, or compute it at "
               "root.";
        user_assert(bytes <= limit)
            << "\"" << op->name << "\" is stored inside the GPU kernel of " << where_ << " in "
            << bytes << " bytes of " << what << ", which holds " << limit
            << ". Compute it at a smaller loop, or at root.";
        return elements;
    }

    /// The number of elements of storage `op` where its size has no constant bound but the
    /// host knows it before the launch (it names nothing bound inside the kernel: a tile of a
    /// size a Param gives); none otherwise.
    std::optional<Expr> launch_time_size(const Allocate *op) const {
        bool bounded = true;
        for (const Expr &e : op->extents)
            bounded = bounded && facts_.bounds_of(e).max.has_value();
        if (bounded) return std::nullopt;
        // Each extent bounded alone (a product of sizes is bounded by the product of bounds).
        Expr elements = Expr(1);
        for (const Expr &e : op->extents) {
            std::optional<Expr> bound = facts_.host_bound_of(e, host_known());
            if (!bound) return std::nullopt;
            elements = elements * max(*bound, 1);
        }
        return simplify(elements);
    }

    /// Storage at the block level, around thread loops: shared by the block's threads.
    Stmt shared(const Allocate *op) {
        user_assert(op->memory_type == MemoryType::Auto || op->memory_type == MemoryType::GPUShared)
            << "\"" << op->name << "\" is computed at the block level of the GPU kernel of "
            << where_ << ", where the block's threads share it, but is stored in "
            << to_string(op->memory_type)
            << "; use store_in(MemoryType::GPUShared) (the default there), or compute it inside "
               "the thread loops.";
        if (std::optional<Expr> size = launch_time_size(op)) {
            // Dynamic shared memory: sized by the host at each launch, rounded up to 16 bytes.
            const int64_t element_bytes = op->type.is_bool() ? 1 : op->type.bytes();
            Expr bytes = cast(Int(64), *size) * Expr(element_bytes);  // (at least 1 element)
            bytes = simplify((bytes + Expr(int64_t(15))) / Expr(int64_t(16)) * Expr(int64_t(16)));
            dynamic_shared_.push_back({op->name, op->type, bytes});
            return Allocate::make(op->name, op->type, MemoryType::GPUShared, {*size}, op->condition,
                                  block_level(op->body));
        }
        int64_t elements = storage_elements(op, kMaxSharedStorage - shared_bytes_,
                                            "the block's shared memory (what is left of it)");
        shared_bytes_ += elements * op->type.bytes();
        return Allocate::make(op->name, op->type, MemoryType::GPUShared, {Expr(elements)},
                              op->condition, block_level(op->body));
    }

    Stmt visit(const Allocate *op) override {
        // Each thread's own storage (registers or the thread's local memory).
        user_assert(op->memory_type != MemoryType::GPUShared)
            << "\"" << op->name << "\" is stored in GPU shared memory but computed inside the "
            << "thread loops of the kernel of " << where_
            << ", where each thread has its own; compute it at the block level (compute_at a "
               "block loop) to share it.";
        user_assert(op->memory_type != MemoryType::Heap)
            << "\"" << op->name << "\" is stored on the heap (store_in(MemoryType::Heap)) inside "
            << "the GPU kernel of " << where_
            << ", which has no heap; remove the store_in, or compute it at root.";
        int64_t elements = storage_elements(op, kMaxThreadStorage, "a thread's own storage");
        return Allocate::make(op->name, op->type, op->memory_type, {Expr(elements)}, op->condition,
                              mutate(op->body));
    }

    Stmt visit(const LetStmt *op) override {
        facts_.push_let(op->name, op->value);
        Stmt body = mutate(op->body);
        facts_.pop_let();
        return LetStmt::make(op->name, mutate(op->value), body);
    }

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
        facts_.push_loop(op->name, op->min, op->extent);
        if (op->for_type != ForType::GPUThread) {
            Stmt s = IRMutator::visit(op);
            facts_.pop_loop(op->name);
            return s;
        }
        // The outermost thread loop of a nest is its highest dimension.
        bool outermost = depth_ == 0;
        if (outermost) nest_depth_ = nest_depth_of(op);
        int dim = nest_depth_ - 1 - depth_;
        depth_++;
        Stmt body = mutate(op->body);
        depth_--;
        facts_.pop_loop(op->name);
        // Threads past the loop's end (the launch serves the largest nest) do nothing.
        Expr index = thread_index(dim);
        if (!can_prove(simplify(op->extent) == thread_extents_[dim]))
            body = IfThenElse::make(index < op->extent, body, Stmt());
        Stmt result = LetStmt::make(op->name, op->min + index, body);
        // The dimensions a shallower nest does not use: their first thread runs it.
        for (int d = nest_depth_; outermost && d < thread_dims_; d++)
            result = IfThenElse::make(thread_index(d) == 0, result, Stmt());
        return result;
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
        user_assert(!op->is_intrinsic(Call::Intrinsic::Require))
            << "The GPU kernel of " << where_
            << " uses require(), which cannot stop the pipeline from inside a kernel; check the "
               "condition in a Func computed on the host.";
        user_assert(!op->is_intrinsic(Call::Intrinsic::Trace))
            << "The GPU kernel of " << where_
            << " traces its Funcs (trace_stores, trace_loads, trace_realizations), which dsl "
               "does not do inside kernels; trace a Func computed on the host (print() works "
               "inside kernels).";
        user_assert(op->call_type == Call::CallType::Intrinsic)
            << "The GPU kernel of " << where_ << " calls \"" << op->name
            << "\", a function of the host, which a kernel cannot call.";
        return IRMutator::visit(op);
    }
    Stmt visit(const Block *op) override {
        // Storage flattening checks that an allocation's element count fits in int32 from its
        // bounds; inside a kernel, storage has a constant size (or bound) that fits, checked
        // where it is allocated.
        if (is_size_check(op->first) && op->rest.as<Allocate>()) return mutate(op->rest);
        return IRMutator::visit(op);
    }

  private:
    std::set<std::string> inner_bound_;
    /// The block loop the kernel starts at, in the user's words (for errors).
    std::string where_;
    KernelFacts facts_;
    /// What the block's code read and wrote since the last barrier (none: nothing to wait for).
    std::optional<BufferAccesses> since_barrier_;
    std::vector<Expr> block_extents_, thread_extents_;
    int depth_ = 0, thread_dims_ = 0, nest_depth_ = 0;
    int64_t shared_bytes_ = 0;
    std::vector<DynamicSharedAllocation> dynamic_shared_;
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
        for (const DynamicSharedAllocation &d : builder.dynamic_shared()) {
            kernel.dynamic_shared.push_back(d);
            launch.push_back(d.bytes);
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
        // One dimension over every element, at the allocation's memory.
        Expr made = Call::make(Handle(), Call::Intrinsic::MakeDescriptor,
                               {Variable::make(Handle(), op->name), make_zero(stored), Expr(0),
                                simplify(elements), Expr(1)});
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
                       const std::set<std::string> &arguments, std::vector<GPUKernel> &kernels) {
    const size_t before = kernels.size();
    Outliner outliner(function, kernels);
    Stmt result = outliner.mutate(s);
    if (kernels.size() == before) return result;  // no kernel: host code only
    // The caller's buffers may hold newer data on the device (a kernel of an earlier pipeline
    // wrote them) even where no kernel of this one uses them: host code reading them copies
    // them back too (nothing happens when the host's copy is current).
    std::set<std::string> synced = outliner.device_buffers;
    synced.insert(arguments.begin(), arguments.end());
    return HostSync(synced).mutate(result);
}

}  // namespace dsl::lowering
