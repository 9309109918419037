// The loop directives of Stage and Func. Each records the transformation in the stage's
// schedule (splits, then the list of loops); lowering applies it. A directive that names a loop
// the stage does not have, or gives an impossible factor, is refused at once with a CompileError
// that lists the stage's loops: the mistake is easiest to fix where it is made.
#include <algorithm>
#include <set>
#include <sstream>

#include "dsl/Func.h"
#include "dsl/Param.h"
#include "ir/Associativity.h"
#include "ir/BufferConstraints.h"
#include "ir/Error.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"
#include "lang/Function.h"

namespace dsl {

using schedule::Dim;
using schedule::Split;

namespace {

std::string stage_name(const lang::Function &f, int id) {
    int stage = f.stage_of(id);
    std::string name =
        "Func \"" + f.name() + "\"" + (stage == 0 ? "" : " update " + std::to_string(stage - 1));
    if (id < 0) {
        std::ostringstream condition;
        condition << f.specialization_condition(id);
        name += " specialized for " + condition.str();
    }
    return name;
}

std::string loop_list(const std::vector<Dim> &dims) {
    std::string s;
    for (size_t i = 0; i < dims.size(); i++)
        s += (i ? ", " : "") + dims[i].var;
    return s.empty() ? "(none)" : s;
}

class Directive {
  public:
    Directive(const std::shared_ptr<lang::FunctionContents> &func, int stage, const char *name)
        : f_(func), stage_(stage), name_(name) {
        user_assert(stage_ < f_.stages())
            << "Func \"" << f_.name() << "\" has no update " << stage_ - 1 << ".";
    }
    lang::Definition &def() const { return f_.stage(stage_); }
    std::vector<Dim> &dims() const { return def().schedule.dims; }

    /// The position of loop `v` in the stage's loops; refuses unknown loops.
    size_t find(const VarOrRVar &v) const {
        for (size_t i = 0; i < dims().size(); i++) {
            if (dims()[i].var == v.name()) return i;
        }
        user_error << stage_name(f_, stage_) << " has no loop \"" << v.name() << "\" (in " << name_
                   << "). Its loops, innermost first, are: " << loop_list(dims()) << ".";
        return 0;
    }
    void require_new(const VarOrRVar &v, const std::string &allowed = "") const {
        if (v.name() == allowed) return;
        for (const Dim &d : dims()) {
            user_assert(d.var != v.name())
                << stage_name(f_, stage_) << ": " << name_ << " would make a second loop named \""
                << v.name() << "\"; choose another name.";
        }
    }
    /// `base`, or `base` with a number appended, whichever names no loop of the stage now or
    /// earlier (an inner loop the directive makes up: unroll(x, 3).unroll(x, 2) makes two).
    std::string unused_loop_name(const std::string &base) const {
        auto used = [&](const std::string &n) {
            for (const Dim &d : dims()) {
                if (d.var == n) return true;
            }
            for (const Split &s : def().schedule.splits) {
                if (s.old_var == n || s.outer == n || s.inner == n) return true;
            }
            return false;
        };
        std::string name = base;
        for (int k = 2; used(name); k++)
            name = base + std::to_string(k);
        return name;
    }
    void done() const {
        def().schedule.touched = true;
        f_.touch();
    }
    std::string where() const { return stage_name(f_, stage_) + ", " + name_; }
    /// The stage (0 for the pure definition), also for a specialization of it.
    int stage() const { return f_.stage_of(stage_); }

  private:
    lang::Function f_;
    int stage_;
    const char *name_;
};

void check_factor(const Directive &d, const Expr &factor) {
    user_assert(factor.defined()) << d.where() << ": the factor is undefined.";
    user_assert(factor.type().is_int_or_uint() && factor.type().is_scalar() &&
                !factor.type().is_bool())
        << d.where() << ": the factor " << factor << " must be an integer.";
    if (auto c = ir::as_const_int(factor)) {
        user_assert(*c > 0) << d.where() << ": the factor is " << *c << "; it must be positive.";
    }
    if (auto c = ir::as_const_uint(factor)) {
        user_assert(*c > 0) << d.where() << ": the factor is 0; it must be positive.";
    }
}

/// Whether loop `var` is the inner loop of an earlier split of the stage, or made from one.
bool made_from_inner_loop(const Directive &d, const std::string &var) {
    std::vector<std::string> from_inner;
    for (const Split &s : d.def().schedule.splits) {
        bool derived =
            std::find(from_inner.begin(), from_inner.end(), s.old_var) != from_inner.end() ||
            (s.kind == Split::Kind::FuseVars &&
             (std::find(from_inner.begin(), from_inner.end(), s.inner) != from_inner.end() ||
              std::find(from_inner.begin(), from_inner.end(), s.outer) != from_inner.end()));
        if (s.kind == Split::Kind::SplitVar) {
            from_inner.push_back(s.inner);
            if (derived) from_inner.push_back(s.outer);
        } else if (derived) {
            from_inner.push_back(s.kind == Split::Kind::FuseVars ? s.old_var : s.outer);
        }
    }
    return std::find(from_inner.begin(), from_inner.end(), var) != from_inner.end();
}

void check_tail(const Directive &d, TailStrategy tail, const VarOrRVar &x, bool is_rvar) {
    user_assert(!(tail == TailStrategy::RoundUp && is_rvar))
        << d.where() << ": TailStrategy::RoundUp on the reduction loop \"" << x.name()
        << "\" would run the update at points outside its RDom. Use GuardWithIf (or Auto).";
    user_assert(
        !(tail == TailStrategy::RoundUp && d.stage() > 0 && made_from_inner_loop(d, x.name())))
        << d.where() << ": TailStrategy::RoundUp on \"" << x.name()
        << "\", the inner loop of another split, would run past the end of each outer "
           "iteration into the next one, applying the update twice at those points. Use "
           "GuardWithIf (or Auto).";
    user_assert(!(tail == TailStrategy::ShiftInwards && d.stage() > 0))
        << d.where() << ": TailStrategy::ShiftInwards computes some points of \"" << x.name()
        << "\" twice, which an update may not do (it would apply twice). Use GuardWithIf, or "
           "RoundUp for a pure Var.";
}

}  // namespace

Stage &Stage::split(const VarOrRVar &x, const VarOrRVar &xo, const VarOrRVar &xi,
                    const Expr &factor, TailStrategy tail) {
    Directive d(func_, stage_, "split");
    size_t i = d.find(x);
    check_factor(d, factor);
    check_tail(d, tail, x, d.dims()[i].is_rvar);
    user_assert(xo.name() != xi.name())
        << d.where() << ": the outer and inner loops are both named \"" << xo.name() << "\".";
    d.require_new(xo, x.name());
    d.require_new(xi, x.name());
    Dim old = d.dims()[i];
    Dim inner = old, outer = old;
    inner.var = xi.name();
    outer.var = xo.name();
    // A loop's kind goes to the half it describes: running in parallel (or across GPU blocks)
    // to the outer loop, whose iterations are the coarse pieces; lanes, unrolled copies and GPU
    // threads to the inner one.
    bool coarse = old.for_type == ir::ForType::Parallel || old.for_type == ir::ForType::GPUBlock;
    bool fine = old.for_type == ir::ForType::Vectorized || old.for_type == ir::ForType::Unrolled ||
                old.for_type == ir::ForType::GPUThread;
    outer.for_type = coarse ? old.for_type : ir::ForType::Serial;
    inner.for_type = fine ? old.for_type : ir::ForType::Serial;
    d.dims()[i] = outer;
    d.dims().insert(d.dims().begin() + static_cast<long>(i), inner);
    d.def().schedule.splits.push_back(
        {Split::Kind::SplitVar, x.name(), xo.name(), xi.name(), cast(Int(32), factor), tail});
    d.done();
    return *this;
}

Stage &Stage::fuse(const VarOrRVar &inner, const VarOrRVar &outer, const VarOrRVar &fused) {
    Directive d(func_, stage_, "fuse");
    size_t i = d.find(inner), o = d.find(outer);
    user_assert(i != o) << d.where() << ": cannot fuse \"" << inner.name() << "\" with itself.";
    d.require_new(fused, inner.name());
    Dim f = d.dims()[i];
    f.var = fused.name();
    f.for_type = ir::ForType::Serial;
    f.is_rvar = d.dims()[i].is_rvar || d.dims()[o].is_rvar;
    d.dims()[i] = f;
    d.dims().erase(d.dims().begin() + static_cast<long>(o));
    d.def().schedule.splits.push_back({Split::Kind::FuseVars, fused.name(), outer.name(),
                                       inner.name(), Expr(), TailStrategy::Auto});
    d.done();
    return *this;
}

Stage &Stage::reorder(const std::vector<VarOrRVar> &order) {
    Directive d(func_, stage_, "reorder");
    std::vector<size_t> positions;
    for (size_t a = 0; a < order.size(); a++) {
        for (size_t b = 0; b < a; b++) {
            user_assert(order[a].name() != order[b].name())
                << d.where() << ": the loop \"" << order[a].name() << "\" is listed twice.";
        }
        positions.push_back(d.find(order[a]));
    }
    std::vector<Dim> chosen;
    for (size_t p : positions)
        chosen.push_back(d.dims()[p]);
    std::sort(positions.begin(), positions.end());
    for (size_t k = 0; k < positions.size(); k++)
        d.dims()[positions[k]] = chosen[k];
    d.done();
    return *this;
}

Stage &Stage::rename(const VarOrRVar &old_name, const VarOrRVar &new_name) {
    Directive d(func_, stage_, "rename");
    size_t i = d.find(old_name);
    d.require_new(new_name);
    d.dims()[i].var = new_name.name();
    d.def().schedule.splits.push_back(
        {Split::Kind::RenameVar, old_name.name(), new_name.name(), "", Expr(), TailStrategy::Auto});
    d.done();
    return *this;
}

Stage &Stage::tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xo, const VarOrRVar &yo,
                   const VarOrRVar &xi, const VarOrRVar &yi, const Expr &xsize, const Expr &ysize,
                   TailStrategy tail) {
    split(x, xo, xi, xsize, tail);
    split(y, yo, yi, ysize, tail);
    return reorder({xi, yi, xo, yo});
}

Stage &Stage::tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xi, const VarOrRVar &yi,
                   const Expr &xsize, const Expr &ysize, TailStrategy tail) {
    return tile(x, y, x, y, xi, yi, xsize, ysize, tail);
}

Stage &Stage::tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &outers,
                   const std::vector<VarOrRVar> &inners, const std::vector<Expr> &factors,
                   TailStrategy tail) {
    Directive d(func_, stage_, "tile");
    user_assert(previous.size() == outers.size() && previous.size() == inners.size() &&
                previous.size() == factors.size())
        << d.where() << ": " << previous.size() << " loops to tile but " << outers.size()
        << " outer loops, " << inners.size() << " inner loops and " << factors.size()
        << " factors; give one of each per loop.";
    for (size_t i = 0; i < previous.size(); i++)
        split(previous[i], outers[i], inners[i], factors[i], tail);
    std::vector<VarOrRVar> order = inners;
    order.insert(order.end(), outers.begin(), outers.end());
    return order.size() >= 2 ? reorder(order) : *this;
}

Stage &Stage::tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &inners,
                   const std::vector<Expr> &factors, TailStrategy tail) {
    return tile(previous, previous, inners, factors, tail);
}

Stage &Stage::tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &outers,
                   const std::vector<VarOrRVar> &inners, const std::vector<Expr> &factors,
                   const std::vector<TailStrategy> &tails) {
    Directive d(func_, stage_, "tile");
    user_assert(previous.size() == outers.size() && previous.size() == inners.size() &&
                previous.size() == factors.size() && previous.size() == tails.size())
        << d.where() << ": " << previous.size() << " loops to tile but " << outers.size()
        << " outer loops, " << inners.size() << " inner loops, " << factors.size()
        << " factors and " << tails.size() << " tail strategies; give one of each per loop.";
    for (size_t i = 0; i < previous.size(); i++)
        split(previous[i], outers[i], inners[i], factors[i], tails[i]);
    std::vector<VarOrRVar> order = inners;
    order.insert(order.end(), outers.begin(), outers.end());
    return order.size() >= 2 ? reorder(order) : *this;
}

Stage &Stage::tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &inners,
                   const std::vector<Expr> &factors, const std::vector<TailStrategy> &tails) {
    return tile(previous, previous, inners, factors, tails);
}

Stage &Stage::unroll(const VarOrRVar &x) {
    Directive d(func_, stage_, "unroll");
    d.dims()[d.find(x)].for_type = ir::ForType::Unrolled;
    d.done();
    return *this;
}

Stage &Stage::unroll(const VarOrRVar &x, const Expr &factor, TailStrategy tail) {
    // The inner loop's name only matters to the schedule; x stays the outer loop.
    VarOrRVar inner =
        Var(Directive(func_, stage_, "unroll").unused_loop_name(x.name() + "_unrolled"));
    split(x, x, inner, factor, tail);
    return unroll(inner);
}

Stage &Stage::vectorize(const VarOrRVar &x) {
    Directive d(func_, stage_, "vectorize");
    // A loop over RVars is checked for races when the pipeline is compiled (see
    // schedule/RaceConditions.h): allow_race_conditions() may still follow.
    d.dims()[d.find(x)].for_type = ir::ForType::Vectorized;
    d.done();
    return *this;
}

Stage &Stage::vectorize(const VarOrRVar &x, const Expr &factor, TailStrategy tail) {
    Directive d(func_, stage_, "vectorize");
    check_factor(d, factor);
    user_assert(ir::as_const_int(factor) || ir::as_const_uint(factor))
        << d.where() << ": the width " << factor
        << " is not a constant; vectors have a fixed number of lanes.";
    VarOrRVar inner = Var(d.unused_loop_name(x.name() + "_vectorized"));
    split(x, x, inner, factor, tail);
    return vectorize(inner);
}

Stage &Stage::parallel(const VarOrRVar &x) {
    Directive d(func_, stage_, "parallel");
    d.dims()[d.find(x)].for_type = ir::ForType::Parallel;  // checked like vectorize
    d.done();
    return *this;
}

Stage &Stage::parallel(const VarOrRVar &x, const Expr &task_size, TailStrategy tail) {
    VarOrRVar inner =
        Var(Directive(func_, stage_, "parallel").unused_loop_name(x.name() + "_in_task"));
    split(x, x, inner, task_size, tail);
    return parallel(x);
}

Stage &Stage::serial(const VarOrRVar &x) {
    Directive d(func_, stage_, "serial");
    d.dims()[d.find(x)].for_type = ir::ForType::Serial;
    d.done();
    return *this;
}

namespace {

void check_gpu_api(const Directive &d, DeviceAPI api) {
    user_assert(api == DeviceAPI::Default_GPU || api == DeviceAPI::OpenCL || api == DeviceAPI::CUDA)
        << d.where() << ": the device API " << ir::to_string(api)
        << " is not a GPU API dsl generates code for; use DeviceAPI::Default_GPU (the target's), "
           "DeviceAPI::OpenCL or DeviceAPI::CUDA.";
}

/// Marks the loops `vars` (innermost first) as GPU loops of `type` run by `api`.
void mark_gpu_loops(const std::shared_ptr<lang::FunctionContents> &func, int stage,
                    const char *name, std::initializer_list<const VarOrRVar *> vars,
                    ir::ForType type, DeviceAPI api) {
    Directive d(func, stage, name);
    check_gpu_api(d, api);
    for (const VarOrRVar *v : vars) {
        Dim &dim = d.dims()[d.find(*v)];
        dim.for_type = type;
        dim.device_api = api;
    }
    d.done();
}

}  // namespace

Stage &Stage::gpu_blocks(const VarOrRVar &x, DeviceAPI api) {
    mark_gpu_loops(func_, stage_, "gpu_blocks", {&x}, ir::ForType::GPUBlock, api);
    return *this;
}
Stage &Stage::gpu_blocks(const VarOrRVar &x, const VarOrRVar &y, DeviceAPI api) {
    mark_gpu_loops(func_, stage_, "gpu_blocks", {&x, &y}, ir::ForType::GPUBlock, api);
    return *this;
}
Stage &Stage::gpu_blocks(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z,
                         DeviceAPI api) {
    mark_gpu_loops(func_, stage_, "gpu_blocks", {&x, &y, &z}, ir::ForType::GPUBlock, api);
    return *this;
}
Stage &Stage::gpu_single_thread(DeviceAPI api) {
    Directive d(func_, stage_, "gpu_single_thread");
    check_gpu_api(d, api);
    for (const Dim &dim : d.dims()) {
        user_assert(dim.for_type != ir::ForType::GPUBlock && dim.for_type != ir::ForType::GPUThread)
            << d.where() << ": the loop \"" << dim.var
            << "\" is a GPU loop already; a stage runs on one thread (gpu_single_thread) or on "
               "its GPU loops, not both.";
    }
    Dim block;
    block.var = schedule::kGPUSingleThread;
    block.for_type = ir::ForType::GPUBlock;
    block.device_api = api;
    d.dims().push_back(block);
    d.done();
    return *this;
}

Stage &Stage::gpu_lanes(const VarOrRVar &x, DeviceAPI api) {
    // The lanes of a warp are its threads: a thread loop, of the launch's dimension 0.
    mark_gpu_loops(func_, stage_, "gpu_lanes", {&x}, ir::ForType::GPUThread, api);
    return *this;
}

Stage &Stage::gpu_threads(const VarOrRVar &x, DeviceAPI api) {
    mark_gpu_loops(func_, stage_, "gpu_threads", {&x}, ir::ForType::GPUThread, api);
    return *this;
}
Stage &Stage::gpu_threads(const VarOrRVar &x, const VarOrRVar &y, DeviceAPI api) {
    mark_gpu_loops(func_, stage_, "gpu_threads", {&x, &y}, ir::ForType::GPUThread, api);
    return *this;
}
Stage &Stage::gpu_threads(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z,
                          DeviceAPI api) {
    mark_gpu_loops(func_, stage_, "gpu_threads", {&x, &y, &z}, ir::ForType::GPUThread, api);
    return *this;
}
Stage &Stage::gpu_tile(const VarOrRVar &x, const VarOrRVar &bx, const VarOrRVar &tx,
                       const Expr &x_size, TailStrategy tail, DeviceAPI api) {
    split(x, bx, tx, x_size, tail);
    gpu_blocks(bx, api);
    return gpu_threads(tx, api);
}
Stage &Stage::gpu_tile(const VarOrRVar &x, const VarOrRVar &tx, const Expr &x_size,
                       TailStrategy tail, DeviceAPI api) {
    return gpu_tile(x, x, tx, x_size, tail, api);
}
Stage &Stage::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &bx,
                       const VarOrRVar &by, const VarOrRVar &tx, const VarOrRVar &ty,
                       const Expr &x_size, const Expr &y_size, TailStrategy tail, DeviceAPI api) {
    tile(x, y, bx, by, tx, ty, x_size, y_size, tail);
    gpu_blocks(bx, by, api);
    return gpu_threads(tx, ty, api);
}
Stage &Stage::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &tx,
                       const VarOrRVar &ty, const Expr &x_size, const Expr &y_size,
                       TailStrategy tail, DeviceAPI api) {
    return gpu_tile(x, y, x, y, tx, ty, x_size, y_size, tail, api);
}
Stage &Stage::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z,
                       const VarOrRVar &bx, const VarOrRVar &by, const VarOrRVar &bz,
                       const VarOrRVar &tx, const VarOrRVar &ty, const VarOrRVar &tz,
                       const Expr &x_size, const Expr &y_size, const Expr &z_size,
                       TailStrategy tail, DeviceAPI api) {
    tile({x, y, z}, {bx, by, bz}, {tx, ty, tz}, {x_size, y_size, z_size}, tail);
    gpu_blocks(bx, by, bz, api);
    return gpu_threads(tx, ty, tz, api);
}
Stage &Stage::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z,
                       const VarOrRVar &tx, const VarOrRVar &ty, const VarOrRVar &tz,
                       const Expr &x_size, const Expr &y_size, const Expr &z_size,
                       TailStrategy tail, DeviceAPI api) {
    return gpu_tile(x, y, z, x, y, z, tx, ty, tz, x_size, y_size, z_size, tail, api);
}

namespace {

void add_prefetch(const Directive &d, const std::string &target, const VarOrRVar &at,
                  const VarOrRVar &from, const Expr &offset, PrefetchBoundStrategy strategy) {
    size_t a = d.find(at), f = d.find(from);
    user_assert(f >= a) << d.where() << " of \"" << target << "\": the loop \"" << from.name()
                        << "\" that the offset applies to is inside the loop \"" << at.name()
                        << "\" where the prefetch goes; it must be that loop or one outside it "
                           "(loops, innermost first: "
                        << loop_list(d.dims()) << ").";
    user_assert(offset.defined() && offset.type().is_int_or_uint() && offset.type().is_scalar() &&
                !offset.type().is_bool())
        << d.where() << " of \"" << target << "\": the offset " << offset
        << " must be an integer (a number of iterations of \"" << from.name() << "\").";
    d.def().schedule.prefetches.push_back(
        {target, at.name(), from.name(), cast(Int(32), offset), strategy});
    d.done();
}

}  // namespace

Stage &Stage::prefetch(const Func &f, const VarOrRVar &at, const VarOrRVar &from,
                       const Expr &offset, PrefetchBoundStrategy strategy) {
    Directive d(func_, stage_, "prefetch");
    user_assert(f.defined()) << d.where() << ": the Func to prefetch has no definition.";
    add_prefetch(d, f.name(), at, from, offset, strategy);
    return *this;
}

Stage &Stage::prefetch(const ImageParam &f, const VarOrRVar &at, const VarOrRVar &from,
                       const Expr &offset, PrefetchBoundStrategy strategy) {
    Directive d(func_, stage_, "prefetch");
    add_prefetch(d, f.name(), at, from, offset, strategy);
    return *this;
}

Stage &Stage::npu(const VarOrRVar &x) {
    // (A pure definition maps only as the conversion of an NPU contraction's results to bytes,
    // which lowering checks.)
    Directive d(func_, stage_, "npu");
    for (const Dim &dim : d.dims()) {
        user_assert(dim.for_type != ir::ForType::NPU || dim.var == x.name())
            << d.where() << ": the loop \"" << dim.var
            << "\" runs on the NPU already; one loop of a stage is offloaded, with the loops "
               "inside it.";
    }
    Dim &dim = d.dims()[d.find(x)];
    user_assert(dim.var != schedule::kOutermost)
        << d.where() << ": name a loop of the stage, or use npu_gemm() to offload all of it.";
    dim.for_type = ir::ForType::NPU;
    dim.device_api = DeviceAPI::NPU;
    d.done();
    return *this;
}

Stage &Stage::npu_gemm() {
    std::string outermost;
    {
        Directive d(func_, stage_, "npu_gemm");
        for (const Dim &dim : d.dims()) {
            if (dim.var != schedule::kOutermost) outermost = dim.var;
        }
        user_assert(!outermost.empty()) << d.where() << ": the stage has no loops to offload.";
    }
    return npu(Var(outermost));
}

Stage &Stage::npu_tile(int rows) {
    Directive d(func_, stage_, "npu_tile");
    user_assert(rows >= 0 && rows <= 65535)
        << d.where() << ": " << rows
        << " rows per tile; give 1 to 65535, or 0 for the most the NPU's buffers hold.";
    d.def().schedule.npu_tile_rows = rows;
    d.done();
    return *this;
}

Stage &Stage::npu_pipeline(int copies) {
    Directive d(func_, stage_, "npu_pipeline");
    user_assert(copies == 1 || copies == 2)
        << d.where() << ": " << copies
        << " copies of each NPU tile; 1 runs loads, GEMMs and stores in turn, 2 overlaps them.";
    d.def().schedule.npu_copies = copies;
    d.done();
    return *this;
}

Stage &Stage::allow_race_conditions() {
    Directive d(func_, stage_, "allow_race_conditions");
    if (!d.def().rdom.defined()) {
        user_warning << d.where()
                     << ": the stage has no RVars, so there is no race check to turn off; this "
                        "directive has no effect.";
    }
    d.def().schedule.allow_race_conditions = true;
    d.done();
    return *this;
}

Stage &Stage::atomic(bool override_associativity_test) {
    Directive d(func_, stage_, "atomic");
    user_assert(stage_ > 0) << d.where()
                            << ": atomic() applies to an update (a pure definition writes each "
                               "point once); call it on f.update(i).";
    const lang::Definition &def = d.def();
    // A value that does not read the Func is a plain store, indivisible by itself: racing
    // iterations leave one of their values, as in Halide.
    bool reads_itself = false;
    for (const Expr &v : def.values)
        reads_itself |= ir::calls_func(v, func_->name);
    if (!override_associativity_test && reads_itself) {
        std::string why;
        auto op = ir::find_associative_update(func_->name, def.args, def.values, &why);
        user_assert(op) << d.where() << " cannot be made atomic: " << why
                        << ". atomic() needs an update that folds a term into the point it "
                           "writes with an associative operator, such as f(x) = f(x) + e or f(x) "
                           "= max(f(x), e); pass true (atomic(true)) if you know the order does "
                           "not matter.";
    }
    if (!override_associativity_test) {
        user_assert(!ir::calls_func(def.predicate, func_->name))
            << d.where() << ": the where() condition of its RDom reads " << func_->name
            << ", so the order of its iterations matters; it cannot be made atomic.";
    }
    d.def().schedule.atomic = true;
    d.done();
    return *this;
}

Stage &Stage::unscheduled() {
    Directive d(func_, stage_, "unscheduled");
    user_assert(!d.def().schedule.touched)
        << d.where()
        << ": the stage has been given scheduling directives, and unscheduled() says it has "
           "none; remove the directives or the call to unscheduled().";
    return *this;
}

namespace {

/// Records compute_with on stage `stage` of `func`: fused with stage `with_stage` of `with`
/// down to `var`, each loop aligned as `align` names it, the others as `others`.
void record_compute_with(const std::shared_ptr<lang::FunctionContents> &func, int stage,
                         const std::shared_ptr<lang::FunctionContents> &with, int with_stage,
                         const VarOrRVar &var,
                         const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align,
                         LoopAlignStrategy others) {
    Directive d(func, stage, "compute_with");
    user_assert(stage >= 0) << d.where()
                            << ": a specialization runs in the loops of its stage; call "
                               "compute_with on the stage itself.";
    user_assert(with_stage >= 0) << d.where() << ": the stage to fuse with is a specialization; "
                                 << "pass the stage itself.";
    lang::Function other(with);
    user_assert(with_stage < other.stages())
        << d.where() << ": Func \"" << other.name() << "\" has no update " << with_stage - 1 << ".";
    user_assert(with != func)
        << d.where() << ": the stages of one Func run one after the other; compute_with fuses "
        << "the loops of two different Funcs. Fuse a stage of another Func with this one.";
    schedule::StageSchedule::FusedWith fused;
    fused.func = other.name();
    fused.stage = with_stage;
    fused.var = var.name();
    fused.other = others;
    for (const auto &[loop, strategy] : align)
        fused.align[loop.name()] = strategy;
    d.def().schedule.fused_with = fused;
    d.done();
}

}  // namespace

// The single strategy applies to every fused loop (Halide's form); the vector form names loops,
// and the others are Auto.
Stage &Stage::compute_with(const Stage &s, const VarOrRVar &var, LoopAlignStrategy align) {
    record_compute_with(func_, stage_, s.func_, s.stage_, var, {}, align);
    return *this;
}

Stage &Stage::compute_with(const Stage &s, const VarOrRVar &var,
                           const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align) {
    record_compute_with(func_, stage_, s.func_, s.stage_, var, align, LoopAlignStrategy::Auto);
    return *this;
}

Stage &Stage::compute_with(const Func &f, const VarOrRVar &var, LoopAlignStrategy align) {
    return compute_with(Stage(f.contents(), 0), var, align);
}

Stage &Stage::compute_with(const Func &f, const VarOrRVar &var,
                           const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align) {
    return compute_with(Stage(f.contents(), 0), var, align);
}

Stage &Stage::hexagon(const VarOrRVar &) {
    Directive d(func_, stage_, "hexagon");
    user_error << d.where()
               << ": dsl has no Hexagon DSP back end, so no loop can be offloaded to one; remove "
                  "the call (Halide programs guard it with target.has_feature(Target::HVX), "
                  "which is false for every dsl target).";
    return *this;
}

namespace {

/// Refuses conditions a pipeline cannot test once before its loops: anything but a boolean
/// scalar of Params and constants.
class CheckCondition : public ir::IRVisitor {
  public:
    /// The bounds of the Func's own output buffers are allowed too (known before its loops
    /// when it is an output; lowering refuses them otherwise).
    explicit CheckCondition(const lang::Function &f) : allowed_(lang::output_buffer_fields(f)) {}
    std::string offending;

  protected:
    using IRVisitor::visit;
    void visit(const ir::Variable *op) override {
        if (!op->param.defined() && !allowed_.count(op->name) && offending.empty())
            offending = op->name;
    }
    std::set<std::string> allowed_;
    void visit(const ir::Call *op) override {
        IRVisitor::visit(op);
        if ((op->call_type == ir::Call::CallType::Func ||
             op->call_type == ir::Call::CallType::Image) &&
            offending.empty()) {
            offending = op->name + "(...)";
        }
    }
};

}  // namespace

Stage Stage::specialize(const Expr &condition) {
    Directive d(func_, stage_, "specialize");
    user_assert(condition.defined() && condition.type().is_bool() && condition.type().is_scalar())
        << d.where() << ": the condition must be a boolean scalar, e.g. width >= 64 for a "
        << "Param<int> width.";
    CheckCondition check{lang::Function(func_)};
    check.include(condition);
    user_assert(check.offending.empty())
        << d.where() << ": the condition " << condition << " uses \"" << check.offending
        << "\", which is not a Param; a specialization is chosen once, before the loops, so "
           "its condition may only use Params, constants and the bounds of this Func's output "
           "buffer (output_buffer().dim(d).min(), ...).";
    lang::Function f(func_);
    if (std::optional<int> existing = f.existing_specialization(stage_, condition))
        return Stage(func_, *existing);
    // A new one must come before specialize_fail().
    const lang::Definition &def = f.stage(stage_);
    user_assert(def.specialize_fail.empty())
        << d.where() << ": specialize(" << condition << ") comes after specialize_fail(\""
        << def.specialize_fail << "\"), which stands for every case not specialized before it. "
        << "Add the specialization before calling specialize_fail().";
    return Stage(func_, f.add_specialization(stage_, condition));
}

Stage Func::specialize(const Expr &condition) {
    return Stage(contents_, 0).specialize(condition);
}

void Stage::specialize_fail(const std::string &message) {
    Directive d(func_, stage_, "specialize_fail");
    user_assert(!message.empty())
        << d.where() << ": specialize_fail() needs a message, the error the pipeline stops with.";
    lang::Definition &def = lang::Function(func_).stage(stage_);
    user_assert(def.specialize_fail.empty())
        << d.where() << ": specialize_fail() was already called (with \"" << def.specialize_fail
        << "\"); a stage has one.";
    def.specialize_fail = message;
    lang::Function(func_).touch();
}

void Func::specialize_fail(const std::string &message) {
    Stage(contents_, 0).specialize_fail(message);
}

std::string Stage::loops() const {
    return loop_list(lang::Function(func_).stage(stage_).schedule.dims);
}

Stage Func::update(int i) {
    user_assert(i >= 0 && i < num_update_definitions())
        << "Func \"" << name() << "\" has " << num_update_definitions()
        << " update definitions; there is no update " << i << ".";
    return Stage(contents_, i + 1);
}

Func &Func::compute_with(const Stage &s, const VarOrRVar &var, LoopAlignStrategy align) {
    Stage(contents_, 0).compute_with(s, var, align);
    return *this;
}
Func &Func::compute_with(const Stage &s, const VarOrRVar &var,
                         const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align) {
    Stage(contents_, 0).compute_with(s, var, align);
    return *this;
}
Func &Func::compute_with(const Func &f, const VarOrRVar &var, LoopAlignStrategy align) {
    Stage(contents_, 0).compute_with(f, var, align);
    return *this;
}
Func &Func::compute_with(const Func &f, const VarOrRVar &var,
                         const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align) {
    Stage(contents_, 0).compute_with(f, var, align);
    return *this;
}

Func &Func::split(const VarOrRVar &x, const VarOrRVar &xo, const VarOrRVar &xi, const Expr &factor,
                  TailStrategy tail) {
    Stage(contents_, 0).split(x, xo, xi, factor, tail);
    return *this;
}
Func &Func::fuse(const VarOrRVar &inner, const VarOrRVar &outer, const VarOrRVar &fused) {
    Stage(contents_, 0).fuse(inner, outer, fused);
    return *this;
}
Func &Func::reorder(const std::vector<VarOrRVar> &order) {
    Stage(contents_, 0).reorder(order);
    return *this;
}
Func &Func::rename(const VarOrRVar &old_name, const VarOrRVar &new_name) {
    Stage(contents_, 0).rename(old_name, new_name);
    return *this;
}
Func &Func::tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xo, const VarOrRVar &yo,
                 const VarOrRVar &xi, const VarOrRVar &yi, const Expr &xsize, const Expr &ysize,
                 TailStrategy tail) {
    Stage(contents_, 0).tile(x, y, xo, yo, xi, yi, xsize, ysize, tail);
    return *this;
}
Func &Func::tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xi, const VarOrRVar &yi,
                 const Expr &xsize, const Expr &ysize, TailStrategy tail) {
    Stage(contents_, 0).tile(x, y, xi, yi, xsize, ysize, tail);
    return *this;
}
Func &Func::tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &outers,
                 const std::vector<VarOrRVar> &inners, const std::vector<Expr> &factors,
                 TailStrategy tail) {
    Stage(contents_, 0).tile(previous, outers, inners, factors, tail);
    return *this;
}
Func &Func::tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &inners,
                 const std::vector<Expr> &factors, TailStrategy tail) {
    Stage(contents_, 0).tile(previous, inners, factors, tail);
    return *this;
}
Func &Func::tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &outers,
                 const std::vector<VarOrRVar> &inners, const std::vector<Expr> &factors,
                 const std::vector<TailStrategy> &tails) {
    Stage(contents_, 0).tile(previous, outers, inners, factors, tails);
    return *this;
}
Func &Func::tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &inners,
                 const std::vector<Expr> &factors, const std::vector<TailStrategy> &tails) {
    Stage(contents_, 0).tile(previous, inners, factors, tails);
    return *this;
}
Func &Func::unroll(const VarOrRVar &x) {
    Stage(contents_, 0).unroll(x);
    return *this;
}
Func &Func::unroll(const VarOrRVar &x, const Expr &factor, TailStrategy tail) {
    Stage(contents_, 0).unroll(x, factor, tail);
    return *this;
}
Func &Func::vectorize(const VarOrRVar &x) {
    Stage(contents_, 0).vectorize(x);
    return *this;
}
Func &Func::vectorize(const VarOrRVar &x, const Expr &factor, TailStrategy tail) {
    Stage(contents_, 0).vectorize(x, factor, tail);
    return *this;
}
Func &Func::parallel(const VarOrRVar &x) {
    Stage(contents_, 0).parallel(x);
    return *this;
}
Func &Func::parallel(const VarOrRVar &x, const Expr &task_size, TailStrategy tail) {
    Stage(contents_, 0).parallel(x, task_size, tail);
    return *this;
}
Func &Func::hexagon(const VarOrRVar &x) {
    Stage(contents_, 0).hexagon(x);
    return *this;
}
Func &Func::serial(const VarOrRVar &x) {
    Stage(contents_, 0).serial(x);
    return *this;
}
Func &Func::gpu_blocks(const VarOrRVar &x, DeviceAPI api) {
    Stage(contents_, 0).gpu_blocks(x, api);
    return *this;
}
Func &Func::gpu_blocks(const VarOrRVar &x, const VarOrRVar &y, DeviceAPI api) {
    Stage(contents_, 0).gpu_blocks(x, y, api);
    return *this;
}
Func &Func::gpu_blocks(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z, DeviceAPI api) {
    Stage(contents_, 0).gpu_blocks(x, y, z, api);
    return *this;
}
Func &Func::gpu_single_thread(DeviceAPI api) {
    Stage(contents_, 0).gpu_single_thread(api);
    return *this;
}
Func &Func::npu(const VarOrRVar &x) {
    Stage(contents_, 0).npu(x);
    return *this;
}
Func &Func::npu_gemm() {
    Stage(contents_, 0).npu_gemm();
    return *this;
}
Func &Func::gpu_lanes(const VarOrRVar &x, DeviceAPI api) {
    Stage(contents_, 0).gpu_lanes(x, api);
    return *this;
}
Func &Func::gpu_threads(const VarOrRVar &x, DeviceAPI api) {
    Stage(contents_, 0).gpu_threads(x, api);
    return *this;
}
Func &Func::gpu_threads(const VarOrRVar &x, const VarOrRVar &y, DeviceAPI api) {
    Stage(contents_, 0).gpu_threads(x, y, api);
    return *this;
}
Func &Func::gpu_threads(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z, DeviceAPI api) {
    Stage(contents_, 0).gpu_threads(x, y, z, api);
    return *this;
}
Func &Func::gpu_tile(const VarOrRVar &x, const VarOrRVar &bx, const VarOrRVar &tx,
                     const Expr &x_size, TailStrategy tail, DeviceAPI api) {
    Stage(contents_, 0).gpu_tile(x, bx, tx, x_size, tail, api);
    return *this;
}
Func &Func::gpu_tile(const VarOrRVar &x, const VarOrRVar &tx, const Expr &x_size, TailStrategy tail,
                     DeviceAPI api) {
    Stage(contents_, 0).gpu_tile(x, tx, x_size, tail, api);
    return *this;
}
Func &Func::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &bx,
                     const VarOrRVar &by, const VarOrRVar &tx, const VarOrRVar &ty,
                     const Expr &x_size, const Expr &y_size, TailStrategy tail, DeviceAPI api) {
    Stage(contents_, 0).gpu_tile(x, y, bx, by, tx, ty, x_size, y_size, tail, api);
    return *this;
}
Func &Func::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &tx,
                     const VarOrRVar &ty, const Expr &x_size, const Expr &y_size, TailStrategy tail,
                     DeviceAPI api) {
    Stage(contents_, 0).gpu_tile(x, y, tx, ty, x_size, y_size, tail, api);
    return *this;
}
Func &Func::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z,
                     const VarOrRVar &bx, const VarOrRVar &by, const VarOrRVar &bz,
                     const VarOrRVar &tx, const VarOrRVar &ty, const VarOrRVar &tz,
                     const Expr &x_size, const Expr &y_size, const Expr &z_size, TailStrategy tail,
                     DeviceAPI api) {
    Stage(contents_, 0)
        .gpu_tile(x, y, z, bx, by, bz, tx, ty, tz, x_size, y_size, z_size, tail, api);
    return *this;
}
Func &Func::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z,
                     const VarOrRVar &tx, const VarOrRVar &ty, const VarOrRVar &tz,
                     const Expr &x_size, const Expr &y_size, const Expr &z_size, TailStrategy tail,
                     DeviceAPI api) {
    Stage(contents_, 0).gpu_tile(x, y, z, tx, ty, tz, x_size, y_size, z_size, tail, api);
    return *this;
}
Func &Func::prefetch(const Func &f, const VarOrRVar &at, const VarOrRVar &from, const Expr &offset,
                     PrefetchBoundStrategy strategy) {
    Stage(contents_, 0).prefetch(f, at, from, offset, strategy);
    return *this;
}
Func &Func::prefetch(const ImageParam &f, const VarOrRVar &at, const VarOrRVar &from,
                     const Expr &offset, PrefetchBoundStrategy strategy) {
    Stage(contents_, 0).prefetch(f, at, from, offset, strategy);
    return *this;
}

}  // namespace dsl
