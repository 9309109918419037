#pragma once
/// `Func`: a pipeline stage. Its algorithm is a pure definition and any number of updates; its
/// schedule says where and how it is computed.
///
///   Func blur("blur");
///   blur(x, y) = (in(x - 1, y) + in(x, y) + in(x + 1, y)) / 3;   // pure definition
///   Func hist("hist");
///   hist(i) = 0;                                                   // pure definition...
///   hist(in(r.x, r.y)) += 1;                                       // ...and an update over r
///   Buffer<int> h = hist.realize({256});

#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "dsl/Argument.h"
#include "dsl/Buffer.h"
#include "dsl/DeviceAPI.h"
#include "dsl/Dimension.h"
#include "dsl/Expr.h"
#include "dsl/JIT.h"
#include "dsl/MemoryType.h"
#include "dsl/RDom.h"
#include "dsl/Target.h"
#include "dsl/Var.h"

namespace dsl {

namespace lang {
struct FunctionContents;
}

class ExternFuncArgument;
class Func;
class ParamMap;

/// The eviction key of a memoized Func (Func::memoize): an integer or handle expression whose
/// value tags the realizations the cache keeps, so that dsl_memoization_cache_evict drops them.
class EvictionKey {
  public:
    explicit EvictionKey(const Expr &key = Expr()) : key_(key) {}
    const Expr &key() const { return key_; }

  private:
    Expr key_;
};
class FuncRef;
class ImageParam;

/// How an extern stage's function is named in the object code (Func::define_extern): C
/// names only (`extern "C"`); CPlusPlus is refused with a CompileError.
enum class NameMangling { Default, C, CPlusPlus };

/// The formats of Func::compile_to_lowered_stmt (unscoped, as Halide's: `HTML`).
enum StmtOutputFormat { Text, HTML };

/// The files Func::compile_to and Pipeline::compile_to write, with Halide's names. dsl writes
/// `assembly`, `bitcode` (LLVM bitcode), `c_header`, `llvm_assembly` (LLVM IR as text),
/// `object`, `static_library` (the object and the runtime in one archive), `stmt` and
/// `stmt_html` (the lowered statement); asking for another is a CompileError.
enum class OutputFileType {
    assembly,
    bitcode,
    c_header,
    c_source,
    compiler_log,
    cpp_stub,
    featurization,
    llvm_assembly,
    object,
    python_extension,
    pytorch_wrapper,
    registration,
    schedule,
    static_library,
    stmt,
    stmt_html,
};

/// How compute_with lines up the iterations of a fused loop when its two stages run over
/// different ranges.
enum class LoopAlignStrategy : uint8_t {
    /// The first iterations run together: the stage fused at iteration k of the loop runs its own
    /// min + k.
    AlignStart,
    /// The last iterations run together.
    AlignEnd,
    /// Each runs its own coordinates: the loop covers both ranges, and each stage skips the
    /// coordinates outside its own.
    NoAlign,
    /// NoAlign, as in Halide.
    Auto,
};

/// How a split handles an extent that its factor does not divide.
enum class TailStrategy : uint8_t {
    /// Chosen when the pipeline is compiled. ShiftInwards, as Halide chooses, for a split of a
    /// pure Var in the pure definition of a Func computed at root (an output included) whose
    /// outer loop is at or around the loop a producer is computed at, whose inner loop is
    /// inside it, and where that producer unrolls or vectorizes a loop over its whole region:
    /// the producer then needs exactly `factor` points per iteration, so those loops have a
    /// constant extent (`conv.compute_at(relu, xo).unroll(x)` with `relu.split(x, xo, xi, 6)`),
    /// and the Func's extent must be at least the factor. GuardWithIf everywhere else: always
    /// safe, and its main loop runs without tests.
    Auto,
    /// Runs whole multiples of the factor, computing points past the end: no test at all. The
    /// Func's storage grows to hold them; on an output, the buffer must (a runtime error says
    /// so). Not for reduction loops.
    RoundUp,
    /// The last outer iteration skips the points past the end (a test the main loop of a
    /// vectorized or unrolled split does not run).
    GuardWithIf,
    /// The last outer iteration is moved back to end at the end, recomputing some points: no
    /// test and full vectors. Needs at least `factor` points (else it computes before the
    /// start); not for updates, which must not run twice at a point.
    ShiftInwards,
    /// GuardWithIf, and the last outer iteration is a partial tile: a Func computed inside it
    /// with a bound_extent() window of at most 8 points along this split (not vectorized
    /// along it) gets a copy of its code per count of points the partial tile can need, which
    /// computes only those. More code, less work: a row of 64 pixels in tiles of 6 computes 64
    /// points of such a Func, not 66.
    PartialTile,
    /// Halide's names for a tail that masks its vector loads and stores instead of running a
    /// scalar loop: here that is what GuardWithIf does inside a vectorized loop (and a test
    /// elsewhere), so they are GuardWithIf.
    Predicate = GuardWithIf,
    PredicateLoads = GuardWithIf,
    PredicateStores = GuardWithIf
};

/// The strategy as C++ source names it: "TailStrategy::GuardWithIf".
const char *tail_strategy_code(TailStrategy t);

/// Writes the enumerator's name ("GuardWithIf", "AlignStart"), as Halide's printers do.
std::ostream &operator<<(std::ostream &out, TailStrategy t);
std::ostream &operator<<(std::ostream &out, LoopAlignStrategy a);

/// What a prefetch does where the region it names reaches past the data (the last rows of an
/// image, with an offset of one row).
enum class PrefetchBoundStrategy : uint8_t {
    /// Prefetches the part of the region that lies inside the Func's storage or the input's
    /// buffer, nothing outside it.
    Clamp,
    /// Prefetches the region only when all of it lies inside; otherwise nothing.
    GuardWithIf
};

/// A loop variable of a stage: a pure `Var` or an `RVar`.
class VarOrRVar {
  public:
    VarOrRVar(const Var &v) : name_(v.name()), is_rvar_(false) {}  // NOLINT: implicit by design
    VarOrRVar(const RVar &r) : name_(r.name()), is_rvar_(true) {}  // NOLINT: implicit by design
    VarOrRVar(const RDom &r) : VarOrRVar(static_cast<RVar>(r)) {}  // NOLINT: implicit by design
    const std::string &name() const { return name_; }
    bool is_rvar() const { return is_rvar_; }

  private:
    std::string name_;
    bool is_rvar_;
};

/// One stage of a Func: its pure definition (stage 0) or one of its updates. Its directives
/// transform the stage's loops; each documents the loops it produces.
class Stage {
  public:
    Stage(std::shared_ptr<lang::FunctionContents> func, int stage)
        : func_(std::move(func)), stage_(stage) {}

    /// Splits `x` into an outer loop `xo` and an inner loop `xi` of `factor` iterations:
    ///   for xo in [0, ceil(extent / factor)):
    ///     for xi in [0, factor):
    ///       x = min + xo * factor + xi        // with GuardWithIf: skipped when x > max
    /// `xo` may be `x` itself (the outer loop keeps the name). A parallel `x` leaves `xo`
    /// parallel; a vectorized or unrolled `x` leaves `xi` so; the other loop is serial.
    Stage &split(const VarOrRVar &x, const VarOrRVar &xo, const VarOrRVar &xi, const Expr &factor,
                 TailStrategy tail = TailStrategy::Auto);
    /// Fuses `inner` and `outer` into one loop `fused` of extent(inner) * extent(outer):
    ///   for fused in [0, extent(inner) * extent(outer)):
    ///     inner = min(inner) + fused % extent(inner); outer = min(outer) + fused / extent(inner)
    Stage &fuse(const VarOrRVar &inner, const VarOrRVar &outer, const VarOrRVar &fused);
    /// Reorders loops: the listed loops, innermost first, take the places they occupy now.
    Stage &reorder(const std::vector<VarOrRVar> &innermost_first);
    template <typename... Args>
    Stage &reorder(const VarOrRVar &a, const VarOrRVar &b, const Args &...rest) {
        return reorder(std::vector<VarOrRVar>{a, b, rest...});
    }
    /// Renames a loop.
    Stage &rename(const VarOrRVar &old_name, const VarOrRVar &new_name);
    /// Splits x and y and puts both inner loops inside both outer ones:
    ///   for yo: for xo: for yi in [0, ysize): for xi in [0, xsize):
    Stage &tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xo, const VarOrRVar &yo,
                const VarOrRVar &xi, const VarOrRVar &yi, const Expr &xsize, const Expr &ysize,
                TailStrategy tail = TailStrategy::Auto);
    /// The same with the outer loops keeping the names `x` and `y`.
    Stage &tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xi, const VarOrRVar &yi,
                const Expr &xsize, const Expr &ysize, TailStrategy tail = TailStrategy::Auto);
    /// Tiles any number of loops: splits `previous[i]` into `outers[i]` and `inners[i]` by
    /// `factors[i]`, and puts every inner loop inside every outer one (in the same order).
    Stage &tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &outers,
                const std::vector<VarOrRVar> &inners, const std::vector<Expr> &factors,
                TailStrategy tail = TailStrategy::Auto);
    /// The same with the outer loops keeping the names of `previous`.
    Stage &tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &inners,
                const std::vector<Expr> &factors, TailStrategy tail = TailStrategy::Auto);
    /// The two forms above with a tail strategy per tiled loop.
    Stage &tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &outers,
                const std::vector<VarOrRVar> &inners, const std::vector<Expr> &factors,
                const std::vector<TailStrategy> &tails);
    Stage &tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &inners,
                const std::vector<Expr> &factors, const std::vector<TailStrategy> &tails);
    /// Replaces the loop by one copy of its body per iteration (its extent must be a constant,
    /// e.g. the inner loop of a split by a constant).
    Stage &unroll(const VarOrRVar &x);
    /// Splits `x` by `factor` and unrolls the inner loop; `x` becomes the outer loop.
    Stage &unroll(const VarOrRVar &x, const Expr &factor, TailStrategy tail = TailStrategy::Auto);
    /// Computes all iterations of the loop at once with SIMD instructions: the loop variable
    /// becomes a vector of `extent` lanes (the extent must be a constant, e.g. the inner loop of
    /// a split by a constant).
    Stage &vectorize(const VarOrRVar &x);
    /// Splits `x` by `factor` (a constant) and vectorizes the inner loop; `x` becomes the outer
    /// loop. A tail the factor does not divide is computed with masked vector operations.
    Stage &vectorize(const VarOrRVar &x, const Expr &factor,
                     TailStrategy tail = TailStrategy::Auto);
    /// Runs the iterations of the loop on the thread pool (DSL_NUM_THREADS or
    /// dsl_set_num_threads set the number of threads).
    Stage &parallel(const VarOrRVar &x);
    /// Splits `x` into tasks of `task_size` iterations and runs the tasks in parallel; `x`
    /// becomes the loop over tasks.
    Stage &parallel(const VarOrRVar &x, const Expr &task_size,
                    TailStrategy tail = TailStrategy::Auto);
    /// Marks the loop as an ordinary sequential loop (undoing unroll, vectorize or parallel).
    Stage &serial(const VarOrRVar &x);

    /// GPU loops (targets with a GPU feature, e.g. `host-opencl`). The loops marked by
    /// gpu_blocks run as the blocks (OpenCL's work-groups) of one kernel launch, those marked by
    /// gpu_threads as the threads of each block (work-items); the innermost loop named is the
    /// launch's dimension 0. Up to three of each, block loops outside thread loops; what runs
    /// inside the thread loops runs on the device. `api` chooses the GPU API; Default_GPU is
    /// the target's.
    Stage &gpu_blocks(const VarOrRVar &x, DeviceAPI api = DeviceAPI::Default_GPU);
    Stage &gpu_blocks(const VarOrRVar &x, const VarOrRVar &y,
                      DeviceAPI api = DeviceAPI::Default_GPU);
    Stage &gpu_blocks(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z,
                      DeviceAPI api = DeviceAPI::Default_GPU);
    Stage &gpu_threads(const VarOrRVar &x, DeviceAPI api = DeviceAPI::Default_GPU);
    Stage &gpu_threads(const VarOrRVar &x, const VarOrRVar &y,
                       DeviceAPI api = DeviceAPI::Default_GPU);
    /// Runs the whole stage on the device as one kernel of one block of one thread: for a
    /// stage no GPU loop can split (a scan), between stages on the device, so that their data
    /// stays there.
    Stage &gpu_single_thread(DeviceAPI api = DeviceAPI::Default_GPU);
    /// Marks `x` as the lanes of a warp: a GPU thread loop (of the launch's dimension 0).
    Stage &gpu_lanes(const VarOrRVar &x, DeviceAPI api = DeviceAPI::Default_GPU);
    Stage &gpu_threads(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z,
                       DeviceAPI api = DeviceAPI::Default_GPU);
    /// Splits `x` by `x_size` into the block loop `bx` and the thread loop `tx` (as split, then
    /// gpu_blocks(bx) and gpu_threads(tx)); the 2-D and 3-D forms tile as tile() does. The forms
    /// without block names keep the names of the tiled loops for the block loops.
    Stage &gpu_tile(const VarOrRVar &x, const VarOrRVar &bx, const VarOrRVar &tx,
                    const Expr &x_size, TailStrategy tail = TailStrategy::Auto,
                    DeviceAPI api = DeviceAPI::Default_GPU);
    Stage &gpu_tile(const VarOrRVar &x, const VarOrRVar &tx, const Expr &x_size,
                    TailStrategy tail = TailStrategy::Auto, DeviceAPI api = DeviceAPI::Default_GPU);
    Stage &gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &bx,
                    const VarOrRVar &by, const VarOrRVar &tx, const VarOrRVar &ty,
                    const Expr &x_size, const Expr &y_size, TailStrategy tail = TailStrategy::Auto,
                    DeviceAPI api = DeviceAPI::Default_GPU);
    Stage &gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &tx,
                    const VarOrRVar &ty, const Expr &x_size, const Expr &y_size,
                    TailStrategy tail = TailStrategy::Auto, DeviceAPI api = DeviceAPI::Default_GPU);
    Stage &gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z, const VarOrRVar &bx,
                    const VarOrRVar &by, const VarOrRVar &bz, const VarOrRVar &tx,
                    const VarOrRVar &ty, const VarOrRVar &tz, const Expr &x_size,
                    const Expr &y_size, const Expr &z_size, TailStrategy tail = TailStrategy::Auto,
                    DeviceAPI api = DeviceAPI::Default_GPU);
    Stage &gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z, const VarOrRVar &tx,
                    const VarOrRVar &ty, const VarOrRVar &tz, const Expr &x_size,
                    const Expr &y_size, const Expr &z_size, TailStrategy tail = TailStrategy::Auto,
                    DeviceAPI api = DeviceAPI::Default_GPU);

    /// The NPU (targets with the feature `npu`; src/npu/README.md). npu(x) runs loop `x` and
    /// the loops inside it on the NPU's GEMM core; they must be a contraction of int8 values
    /// into int32, f(n, m) += i32(a(k, m)) * i32(b(n, k)) with any names and layouts: the loop
    /// whose index the left side lacks is the contraction (k), the one `b` lacks the rows (m),
    /// the one `a` lacks the output channels (n). Each call copies a and b to the NPU in its
    /// layouts, runs the instructions written for the call's sizes, and copies f back.
    /// An update that requantizes point by point what was accumulated, f = clamp(zp +
    /// multiply_by_quantized_multiplier(f, m(c), s(c)), lo, hi) (dsl/Math.h), runs on the NPU's
    /// ALU instead. Anything else inside `x` (other stages, vector loops, other arithmetic) is
    /// an error that says what does not map. npu_gemm() offloads the whole stage.
    Stage &npu(const VarOrRVar &x);
    Stage &npu_gemm();
    /// The rows of f per NPU tile (0, the default: the most the on-chip buffers hold).
    Stage &npu_tile(int rows);
    /// Copies of each on-chip tile: 2 (the default) overlaps the load of the next tile and the
    /// store of the last with this tile's GEMMs; 1 runs them in turn.
    Stage &npu_pipeline(int copies);

    /// At the start of each iteration of loop `at`, asks the CPU to bring into its cache the
    /// data of `f` (a Func or an input) that the same iteration reads when loop `from` is
    /// `offset` iterations further on (`from` is `at` itself or a loop outside it):
    ///   for from:
    ///     for at:
    ///       prefetch the region of f that this iteration of `at` reads at from + offset
    ///       ... (the loops inside `at`)
    /// The region counts what the loops inside `at` read of `f`, directly or through the Funcs
    /// computed inside them, and also through Funcs computed further out (without updates)
    /// whose values they read: prefetching an input at a tile loop, when a padded copy of it
    /// is made a row at a time outside the tiles, fetches the input rows that copy will read.
    /// It is prefetched a cache line at a time along its innermost dimension (a stride other
    /// than 1 there fetches fewer lines; nothing breaks). A prefetch is only a hint: it changes
    /// no result, and costs a few instructions per line even when the data is already cached.
    /// `strategy` says what to do with a region that reaches past `f`'s data.
    Stage &prefetch(const Func &f, const VarOrRVar &at, const VarOrRVar &from,
                    const Expr &offset = 1,
                    PrefetchBoundStrategy strategy = PrefetchBoundStrategy::GuardWithIf);
    Stage &prefetch(const ImageParam &f, const VarOrRVar &at, const VarOrRVar &from,
                    const Expr &offset = 1,
                    PrefetchBoundStrategy strategy = PrefetchBoundStrategy::GuardWithIf);

    /// `parallel` and `vectorize` accept a loop over RVars when its iterations provably touch
    /// different points: some coordinate the update writes is the RVar plus a term that does not
    /// change inside the loop, and the update reads the Func only at the point it writes, e.g.
    ///   f(r.x) = f(r.x) * 2 + g(r.x);   f.update().parallel(r.x);      // accepted
    ///   h(in(r.x)) += 1;                h.update().parallel(r.x);      // refused: a race
    /// Others are refused when the pipeline is compiled. This directive turns the check off for
    /// the stage: use it only when you know that the iterations never collide.
    Stage &allow_race_conditions();
    /// Lets the update's loops over RVars run at the same time even where iterations update the
    /// same point, by folding their terms into it as one indivisible step each. The update must
    /// be associative, `f(args) = op(f(args), term)` with op one of + * min max & | ^ && ||
    /// (Halide's atomic()); `override_associativity_test` skips that check. A vectorized loop
    /// over RVars then sums (or mins, ...) its lanes' terms in registers before folding them in,
    /// and a vectorized pure Var outside it widens the result, e.g. an int8 dot product
    ///   f(x) += i32(a(r, x)) * i32(b(r, x));
    ///   f.update().atomic().vectorize(r, 4).vectorize(x, 16);
    /// which becomes one `vpdpbusd` per 16 x 4 products on targets with avx512_vnni (u8 times
    /// i8). Terms are folded in another grouping, so float sums round differently.
    Stage &atomic(bool override_associativity_test = false);
    /// Says that the stage is meant to run as defined, without directives (Halide's marker for
    /// an update left unscheduled on purpose). A CompileError if a directive has already been
    /// given to the stage; it changes nothing otherwise.
    Stage &unscheduled();
    /// Runs this stage in the loops of stage `s` from the outermost one down to `var`: the two
    /// loop nests become one, and in each iteration of `var` stage `s` runs its loops inside
    /// `var` first, then this stage runs its own.
    ///   f.compute_root(); g.compute_root(); g.compute_with(f, y);
    ///   for y:                      (over the union of f's and g's rows, each skipping the
    ///     for x: f(x, y) = ...       other's; or lined up at their starts or ends: `align`)
    ///     for x: g(x, y) = ...
    /// Both Funcs must be computed at the same place (both at root, or at the same loop of a
    /// consumer), have the same loops, by name and kind, from the outermost down to `var`, no
    /// specializations, and not read each other. A stage of a Func with updates keeps the order
    /// of its stages: the stages of each Func before a fused one run before the fused loops.
    /// `align` says how to line up a fused loop whose two ranges differ (by loop name in the
    /// vector form; Auto for the loops it does not name).
    Stage &compute_with(const Stage &s, const VarOrRVar &var,
                        LoopAlignStrategy align = LoopAlignStrategy::Auto);
    Stage &compute_with(const Stage &s, const VarOrRVar &var,
                        const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align);
    /// With a Func: its pure definition (stage 0).
    Stage &compute_with(const Func &f, const VarOrRVar &var,
                        LoopAlignStrategy align = LoopAlignStrategy::Auto);
    Stage &compute_with(const Func &f, const VarOrRVar &var,
                        const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align);
    /// Halide offloads the stage to a Hexagon DSP from loop `x`; dsl has no Hexagon back end, so
    /// this is a CompileError. (Halide programs call it only when their target has
    /// Target::HVX, which no dsl target has.)
    Stage &hexagon(const VarOrRVar &x = Var::outermost());
    /// A second schedule for this stage, used when `condition` (a boolean of Params) holds at
    /// run time; the Stage returned takes its directives, starting from a copy of this stage's
    /// schedule so far. The first specialization whose condition holds is used:
    ///   if (condition) { loops of the specialization } else { loops of this stage }
    /// Specializations share the stage's definition: only the schedule differs. A producer
    /// computed at one of the stage's loops must find that loop in every specialization.
    /// Asked again for a condition it has, it returns that specialization.
    Stage specialize(const Expr &condition);
    /// After the stage's specializations: when none of them holds, the pipeline stops with a
    /// runtime error carrying `message` (dsl_error_specialize_fail) instead of running this
    /// stage's own schedule. For chains of specialize() with no general case. No new
    /// specialization may follow it.
    void specialize_fail(const std::string &message);

    /// Splits an associative reduction (x + e, x - e, x * e, min, max, bitwise and / or / xor,
    /// logical and / or, and the Tuples of argmin / argmax) into two. The returned Func
    /// computes partial results, with each listed RVar of this update replaced by a pure Var:
    ///   f(x) = f(x) + g(x, r.x, r.y);          rfactor({{r.y, u}}) turns this update into
    ///   f_intm(x, u) = identity;               // the new Func (computed at root by default)
    ///   f_intm(x, u) = f_intm(x, u) + g(x, r.x, u);     over r.x only
    ///   f(x) = f(x) + f_intm(x, r.y);          over r.y only
    /// The partial results' loops over u can then be parallelized or vectorized. RVars made by
    /// split or fuse may be listed (name them with RVar("rxi")); this stage's schedule is
    /// reset to its default loops. argmin / argmax keep the first of equal values, so for them
    /// the listed RVars must be the outermost loops of the update. An empty list moves the
    /// whole reduction into the new Func (f_intm(x) over r.x and r.y; then f(x) = f(x) +
    /// f_intm(x), with no RVar), a Func of its own to schedule (e.g. compute_with another).
    Func rfactor(std::vector<std::pair<RVar, Var>> preserved);
    Func rfactor(const RVar &r, const Var &v);

    /// The stage's loops, innermost first, e.g. "xi, yi, xo, yo".
    std::string loops() const;

  private:
    std::shared_ptr<lang::FunctionContents> func_;
    int stage_;
};

/// Several values computed together at each point: `f(x) = Tuple(a, b)`.
class Tuple {
  public:
    Tuple(std::initializer_list<Expr> exprs) : exprs_(exprs) {}
    /// A Tuple of one value.
    explicit Tuple(const Expr &e) : exprs_{e} {}
    /// Every value of a call to a Tuple-valued Func: `Tuple t = f(x)` (or its one value).
    Tuple(const FuncRef &call);  // NOLINT: implicit by design
    template <typename... Rest>
    Tuple(const Expr &a, const Expr &b, const Rest &...rest) : exprs_{a, b, Expr(rest)...} {}
    explicit Tuple(std::vector<Expr> exprs) : exprs_(std::move(exprs)) {}
    size_t size() const { return exprs_.size(); }
    const Expr &operator[](size_t i) const { return exprs_.at(i); }
    const std::vector<Expr> &as_vector() const { return exprs_; }

  private:
    std::vector<Expr> exprs_;
};

/// The outputs of a realization: one buffer per Tuple element.
class Realization {
  public:
    explicit Realization(std::vector<Buffer<>> buffers) : buffers_(std::move(buffers)) {}
    /// `f.realize({a, b})` realizes a Tuple-valued Func into the buffers a and b.
    Realization(std::initializer_list<Buffer<>> buffers) : buffers_(buffers) {}
    /// `Realization(a, b, ...)` of two or more buffers of any element types.
    template <typename A, int DA, typename B, int DB, typename... Rest>
    Realization(const Buffer<A, DA> &a, const Buffer<B, DB> &b, const Rest &...rest)
        : buffers_{Buffer<>(a), Buffer<>(b), Buffer<>(rest)...} {}
    size_t size() const { return buffers_.size(); }
    const Buffer<> &operator[](size_t i) const { return buffers_.at(i); }
    Buffer<> &operator[](size_t i) { return buffers_.at(i); }
    /// A single-output realization converts to its buffer.
    template <typename T, int D>
    operator Buffer<T, D>() const {  // NOLINT: implicit by design
        if (buffers_.size() != 1) {
            throw CompileError("Error: this realization has " + std::to_string(buffers_.size()) +
                               " buffers (a Tuple); index it, e.g. r[0].");
        }
        return Buffer<T, D>(buffers_[0]);
    }
    const std::vector<Buffer<>> &buffers() const { return buffers_; }

  private:
    std::vector<Buffer<>> buffers_;
};

class FuncTupleElementRef;

/// A Func applied to arguments: the left side of a definition, or a call on a right side.
class FuncRef {
  public:
    FuncRef(const Func &f, std::vector<Expr> args);
    FuncRef(const FuncRef &) = default;

    /// Defines the Func: a pure definition if all arguments are its Vars and it has none yet,
    /// else an update.
    FuncRef &operator=(const Expr &value);
    FuncRef &operator=(const Tuple &values);
    FuncRef &operator=(const FuncRef &other);
    /// Updates; on a Func without a pure definition they first define it as 0 (or 1 for *=, /=).
    FuncRef &operator+=(const Expr &value);
    FuncRef &operator-=(const Expr &value);
    FuncRef &operator*=(const Expr &value);
    FuncRef &operator/=(const Expr &value);
    /// Element by element on a Tuple-valued Func: `f(x) += Tuple(a, b)` is
    /// `f(x) = Tuple(f(x)[0] + a, f(x)[1] + b)` (each result cast to its element's type).
    FuncRef &operator+=(const Tuple &values);
    FuncRef &operator-=(const Tuple &values);
    FuncRef &operator*=(const Tuple &values);
    FuncRef &operator/=(const Tuple &values);
    /// A call on the right: as its value, or as its Tuple for a Tuple-valued Func.
    FuncRef &operator+=(const FuncRef &call);
    FuncRef &operator-=(const FuncRef &call);
    FuncRef &operator*=(const FuncRef &call);
    FuncRef &operator/=(const FuncRef &call);

    /// The call, as a value (single-output Funcs).
    operator Expr() const;  // NOLINT: implicit by design
    /// The stage the last definition made: `Stage s = (f(x) = f(x) + 1);` names an update.
    operator Stage() const;  // NOLINT: implicit by design
    /// One element of a Tuple-valued Func: a value, or the left side of an update of that
    /// element alone (`f(x)[1] += 1`).
    FuncTupleElementRef operator[](int i) const;
    /// The value of element i of the call.
    Expr value(int i) const;
    /// The number of values of the Func called (1, or its Tuple's size).
    size_t size() const;
    const std::vector<Expr> &args() const { return args_; }

  private:
    friend class FuncTupleElementRef;
    void define(const std::vector<Expr> &values);
    FuncRef &update_with(int op, const Expr &value);
    FuncRef &update_tuple_with(int op, const Tuple &values);

    std::shared_ptr<lang::FunctionContents> func_;
    std::vector<Expr> args_;
};

/// One element of a call to a Tuple-valued Func: `f(x)[1]`. It converts to the element's
/// value; as the left side of a definition it updates that element alone, the others keeping
/// their values (they are not stored at all):
///   f(x)[1] = f(x)[1] * 2;      // f(x) = Tuple(undef, f(x)[1] * 2), element 0 untouched
class FuncTupleElementRef {
  public:
    FuncTupleElementRef(FuncRef ref, int index) : ref_(std::move(ref)), index_(index) {}
    operator Expr() const { return ref_.value(index_); }  // NOLINT: implicit by design
    FuncTupleElementRef &operator=(const Expr &value);
    FuncTupleElementRef &operator=(const FuncTupleElementRef &other) { return *this = Expr(other); }
    FuncTupleElementRef(const FuncTupleElementRef &) = default;
    /// Each keeps the element's type (the result is cast back).
    FuncTupleElementRef &operator+=(const Expr &value);
    FuncTupleElementRef &operator-=(const Expr &value);
    FuncTupleElementRef &operator*=(const Expr &value);
    FuncTupleElementRef &operator/=(const Expr &value);
    int index() const { return index_; }
    /// The stage the last definition made (see FuncRef).
    operator Stage() const { return ref_; }  // NOLINT: implicit by design

  private:
    FuncRef ref_;
    int index_;
};

/// No value: as a whole value of an update, that element of a Tuple is not stored (it keeps
/// what it held), e.g. `f(x) = Tuple(f(x)[0] + 1, undef<float>())`. Nowhere else.
Expr undef(Type t);
template <typename T>
Expr undef() {
    return undef(type_of<T>());
}

class Func {
  public:
    /// A Func with a fresh unique name.
    Func();
    explicit Func(const std::string &name);
    /// A Func that reads a buffer: f(x, y, ...) = buffer(x, y, ...).
    explicit Func(const Buffer<> &buffer);
    /// Another handle to the Func behind `contents` (internal).
    explicit Func(std::shared_ptr<lang::FunctionContents> contents)
        : contents_(std::move(contents)) {}

    /// `f(x, y)` with Vars, RVars, Exprs or ints.
    template <typename... Args>
    FuncRef operator()(const Args &...args) const {
        return FuncRef(*this, std::vector<Expr>{Expr(args)...});
    }
    FuncRef operator()(const std::vector<Expr> &args) const { return FuncRef(*this, args); }
    FuncRef operator()(const std::vector<Var> &args) const;

    const std::string &name() const;
    bool defined() const;
    int dimensions() const;
    /// The pure arguments, dimension 0 first.
    std::vector<Var> args() const;
    /// The value type of a single-output Func.
    Type type() const;
    std::vector<Type> types() const;
    /// Halide's names for type() and types().
    Type output_type() const { return type(); }
    std::vector<Type> output_types() const { return types(); }
    /// The right side of the pure definition of a single-output Func (its Vars stand for its
    /// arguments); values() for a Tuple's.
    Expr value() const;
    std::vector<Expr> values() const;
    /// The left and right sides of update `idx` (Halide's update_args / update_value /
    /// update_values).
    std::vector<Expr> update_args(int idx = 0) const;
    Expr update_value(int idx = 0) const;
    std::vector<Expr> update_values(int idx = 0) const;
    int outputs() const;
    bool has_update_definition() const;
    int num_update_definitions() const;
    /// The buffer the (single) output value is written to when this Func is a pipeline's
    /// output: its bounds and constraints on them (`output_buffer().dim(0).set_min(0)`). The
    /// Func must be defined.
    OutputBuffer output_buffer() const;
    /// One per output value (a Tuple's elements).
    std::vector<OutputBuffer> output_buffers() const;

    // Schedule. The loop directives apply to the pure definition (stage 0); `update(i)` gives
    // the Stage of update i.
    Stage update(int i = 0);
    Func &split(const VarOrRVar &x, const VarOrRVar &xo, const VarOrRVar &xi, const Expr &factor,
                TailStrategy tail = TailStrategy::Auto);
    Func &fuse(const VarOrRVar &inner, const VarOrRVar &outer, const VarOrRVar &fused);
    Func &reorder(const std::vector<VarOrRVar> &innermost_first);
    template <typename... Args>
    Func &reorder(const VarOrRVar &a, const VarOrRVar &b, const Args &...rest) {
        return reorder(std::vector<VarOrRVar>{a, b, rest...});
    }
    Func &rename(const VarOrRVar &old_name, const VarOrRVar &new_name);
    Func &tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xo, const VarOrRVar &yo,
               const VarOrRVar &xi, const VarOrRVar &yi, const Expr &xsize, const Expr &ysize,
               TailStrategy tail = TailStrategy::Auto);
    Func &tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xi, const VarOrRVar &yi,
               const Expr &xsize, const Expr &ysize, TailStrategy tail = TailStrategy::Auto);
    Func &tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &outers,
               const std::vector<VarOrRVar> &inners, const std::vector<Expr> &factors,
               TailStrategy tail = TailStrategy::Auto);
    Func &tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &inners,
               const std::vector<Expr> &factors, TailStrategy tail = TailStrategy::Auto);
    Func &tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &outers,
               const std::vector<VarOrRVar> &inners, const std::vector<Expr> &factors,
               const std::vector<TailStrategy> &tails);
    Func &tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &inners,
               const std::vector<Expr> &factors, const std::vector<TailStrategy> &tails);
    Func &unroll(const VarOrRVar &x);
    Func &unroll(const VarOrRVar &x, const Expr &factor, TailStrategy tail = TailStrategy::Auto);
    Func &vectorize(const VarOrRVar &x);
    Func &vectorize(const VarOrRVar &x, const Expr &factor, TailStrategy tail = TailStrategy::Auto);
    Func &parallel(const VarOrRVar &x);
    Func &parallel(const VarOrRVar &x, const Expr &task_size,
                   TailStrategy tail = TailStrategy::Auto);
    Func &serial(const VarOrRVar &x);
    /// Stage::hexagon of the pure definition: a CompileError (dsl has no Hexagon back end).
    Func &hexagon(const VarOrRVar &x = Var::outermost());
    Func &gpu_blocks(const VarOrRVar &x, DeviceAPI api = DeviceAPI::Default_GPU);
    Func &gpu_blocks(const VarOrRVar &x, const VarOrRVar &y,
                     DeviceAPI api = DeviceAPI::Default_GPU);
    Func &gpu_blocks(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z,
                     DeviceAPI api = DeviceAPI::Default_GPU);
    Func &gpu_threads(const VarOrRVar &x, DeviceAPI api = DeviceAPI::Default_GPU);
    Func &gpu_threads(const VarOrRVar &x, const VarOrRVar &y,
                      DeviceAPI api = DeviceAPI::Default_GPU);
    Func &gpu_single_thread(DeviceAPI api = DeviceAPI::Default_GPU);
    /// The pure definition on the NPU: only a conversion of an NPU contraction's int32 results
    /// to int8 or uint8 (`q(x, y) = cast<int8_t>(c(x, y))`), whose bytes the NPU's STORE then
    /// writes itself (docs/npu.md).
    Func &npu(const VarOrRVar &x);
    Func &npu_gemm();
    Func &gpu_lanes(const VarOrRVar &x, DeviceAPI api = DeviceAPI::Default_GPU);
    Func &gpu_threads(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z,
                      DeviceAPI api = DeviceAPI::Default_GPU);
    Func &gpu_tile(const VarOrRVar &x, const VarOrRVar &bx, const VarOrRVar &tx, const Expr &x_size,
                   TailStrategy tail = TailStrategy::Auto, DeviceAPI api = DeviceAPI::Default_GPU);
    Func &gpu_tile(const VarOrRVar &x, const VarOrRVar &tx, const Expr &x_size,
                   TailStrategy tail = TailStrategy::Auto, DeviceAPI api = DeviceAPI::Default_GPU);
    Func &gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &bx, const VarOrRVar &by,
                   const VarOrRVar &tx, const VarOrRVar &ty, const Expr &x_size, const Expr &y_size,
                   TailStrategy tail = TailStrategy::Auto, DeviceAPI api = DeviceAPI::Default_GPU);
    Func &gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &tx, const VarOrRVar &ty,
                   const Expr &x_size, const Expr &y_size, TailStrategy tail = TailStrategy::Auto,
                   DeviceAPI api = DeviceAPI::Default_GPU);
    Func &gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z, const VarOrRVar &bx,
                   const VarOrRVar &by, const VarOrRVar &bz, const VarOrRVar &tx,
                   const VarOrRVar &ty, const VarOrRVar &tz, const Expr &x_size, const Expr &y_size,
                   const Expr &z_size, TailStrategy tail = TailStrategy::Auto,
                   DeviceAPI api = DeviceAPI::Default_GPU);
    Func &gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z, const VarOrRVar &tx,
                   const VarOrRVar &ty, const VarOrRVar &tz, const Expr &x_size, const Expr &y_size,
                   const Expr &z_size, TailStrategy tail = TailStrategy::Auto,
                   DeviceAPI api = DeviceAPI::Default_GPU);
    Func &prefetch(const Func &f, const VarOrRVar &at, const VarOrRVar &from,
                   const Expr &offset = 1,
                   PrefetchBoundStrategy strategy = PrefetchBoundStrategy::GuardWithIf);
    Func &prefetch(const ImageParam &f, const VarOrRVar &at, const VarOrRVar &from,
                   const Expr &offset = 1,
                   PrefetchBoundStrategy strategy = PrefetchBoundStrategy::GuardWithIf);
    /// A second schedule for the pure definition when `condition` holds (see Stage::specialize).
    Stage specialize(const Expr &condition);
    /// The pure definition stops the pipeline when none of its specializations holds (see
    /// Stage::specialize_fail).
    void specialize_fail(const std::string &message);

    /// Makes this Func an extern stage: its values over a region are computed by the C
    /// function `function_name` of the program (dsl/Extern.h has ExternFuncArgument):
    ///
    ///     extern "C" int fn(<scalars and dsl_buffer_t *s of `params`, in order>,
    ///                       dsl_buffer_t *out0, ...);  // one output per type in `types`
    ///
    /// It returns 0, or an error code that realize() reports. It is first called for a
    /// bounds query: every buffer has no host memory (`host == NULL`); the outputs hold the
    /// region the pipeline needs, and the function may set the min and extent of each input
    /// Func's buffer to the region it will read (left alone, that is the output's region, for
    /// the dimensions the input shares with the output, and nothing beyond). Then it is
    /// called with the inputs computed over that region and the outputs' host memory set, to
    /// fill the outputs' regions. JIT-compiled pipelines find the function by its name in the
    /// program when it is declared with DSL_EXTERN_STAGE(name) (dsl/Extern.h), or exported
    /// (-rdynamic). The Func has `dimensionality` pure Vars (or `arguments`),
    /// no updates, and is computed at root unless scheduled at a consumer's loop; its Func
    /// inputs must be computed (compute_root, or compute_at the same loop or further out),
    /// not inlined. Extern stages run on the host (DeviceAPI::Host), and have no loops of
    /// their own to split or vectorize.
    void define_extern(const std::string &function_name,
                       const std::vector<ExternFuncArgument> &params, Type type, int dimensionality,
                       NameMangling mangling = NameMangling::Default,
                       DeviceAPI device_api = DeviceAPI::Host);
    void define_extern(const std::string &function_name,
                       const std::vector<ExternFuncArgument> &params,
                       const std::vector<Type> &types, int dimensionality,
                       NameMangling mangling = NameMangling::Default,
                       DeviceAPI device_api = DeviceAPI::Host);
    void define_extern(const std::string &function_name,
                       const std::vector<ExternFuncArgument> &params, Type type,
                       const std::vector<Var> &arguments,
                       NameMangling mangling = NameMangling::Default,
                       DeviceAPI device_api = DeviceAPI::Host);
    void define_extern(const std::string &function_name,
                       const std::vector<ExternFuncArgument> &params,
                       const std::vector<Type> &types, const std::vector<Var> &arguments,
                       NameMangling mangling = NameMangling::Default,
                       DeviceAPI device_api = DeviceAPI::Host);
    /// Whether this Func is an extern stage (define_extern).
    bool is_extern() const;
    /// The name of an extern stage's function.
    std::string extern_function_name() const;

    /// Stage::compute_with on this Func's pure definition (stage 0): `g.compute_with(f, y)`.
    Func &compute_with(const Stage &s, const VarOrRVar &var,
                       LoopAlignStrategy align = LoopAlignStrategy::Auto);
    Func &compute_with(const Stage &s, const VarOrRVar &var,
                       const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align);
    Func &compute_with(const Func &f, const VarOrRVar &var,
                       LoopAlignStrategy align = LoopAlignStrategy::Auto);
    Func &compute_with(const Func &f, const VarOrRVar &var,
                       const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align);

    /// Computes the whole Func before its consumers, outside all their loops.
    Func &compute_root();
    /// Computes the Func inside the loop `var` of its consumer `f`, once per iteration of that
    /// loop, over just the region that iteration needs:
    ///   for f.y:
    ///     for f.x:                      (compute_at(f, x))
    ///       produce this Func over the points f(x, y) reads
    ///       f(x, y) = ...
    /// `f` must be the only Func that uses this one. Errors list the legal loops.
    Func &compute_at(const Func &f, const VarOrRVar &var);
    /// Allocates the Func's storage at the loop `var` of `f` (outside the loop where it is
    /// computed) instead of where it is computed, so that values computed in one iteration stay
    /// for the next ones:
    ///   for f.y:                        (store_at(f, y))
    ///     store this Func
    ///     for f.x:                      (compute_at(f, x))
    ///       produce only the points earlier iterations of f.x have not computed (sliding window)
    ///       f(x, y) = ...
    /// When the region only moves forward along one dimension, the storage is also folded: it
    /// keeps just the last few rows or columns the consumer still reads, as a circular buffer.
    /// `var` must be the compute_at loop or a loop around it; errors list the legal loops.
    Func &store_at(const Func &f, const VarOrRVar &var);
    /// Allocates the Func's storage once, outside every loop (see store_at).
    Func &store_root();
    /// Computes exactly [min, min + extent) of the pure dimension `var` (a runtime error if
    /// the consumers need more). A constant extent lets loops over `var` be unrolled or
    /// vectorized without a tail.
    Func &bound(const Var &var, const Expr &min, const Expr &extent);
    /// Computes exactly `extent` points of the pure dimension `var`, starting where they are
    /// first needed, wherever the Func is computed (a runtime error if the consumers need more
    /// at once). For a Func computed inside a loop of another, whose region per iteration is
    /// not a constant that the compiler can see (a tile clamped at the image's edges), a
    /// constant extent lets its loops over `var` be unrolled or vectorized without a tail and
    /// its storage live on the stack. Replaces an earlier bound() of `var`. Not for outputs.
    Func &bound_extent(const Var &var, const Expr &extent);
    /// Widens the region computed of the pure dimension `var`, wherever the Func is computed, so
    /// that it starts at a point equal to `remainder` modulo `modulus` and spans a multiple of
    /// `modulus` points: with align_bounds(x, 2), a loop over x unrolled by 2 always starts at
    /// an even x. `modulus` (positive) and `remainder` are integer constants. Not for outputs,
    /// whose region is their buffer.
    Func &align_bounds(const Var &var, const Expr &modulus, const Expr &remainder = 0);
    /// Widens the region computed of `var` to a multiple of `modulus` points, keeping its start.
    Func &align_extent(const Var &var, const Expr &modulus);
    /// Tells the autoscheduler (Pipeline::auto_schedule) the region of the pure dimension `var`
    /// it should expect this Func to be computed over, typically an output's size: `min` and
    /// `extent` are constants or expressions of Params with estimates. It changes nothing else:
    /// the compiled code runs on any size. Replaces an earlier estimate of `var`.
    Func &set_estimate(const Var &var, const Expr &min, const Expr &extent);
    /// Estimates for every dimension, dimension 0 first.
    Func &set_estimates(const Region &estimates);
    /// Lays the Func's storage out with the listed dimensions, innermost (stride 1) first, in
    /// the places they occupy now (e.g. reorder_storage(y, x) makes columns contiguous). The
    /// result does not change; locality may. Applies to Funcs that are not outputs (an
    /// output's layout is its buffer's).
    Func &reorder_storage(const std::vector<Var> &innermost_first);
    template <typename... Args>
    Func &reorder_storage(const Var &a, const Var &b, const Args &...rest) {
        return reorder_storage(std::vector<Var>{a, b, rest...});
    }
    /// Pads the storage of `var` to a multiple of `alignment` elements (an integer Expr, e.g. a
    /// constant), so that the strides of the dimensions stored outside it are multiples of it
    /// too: `f.align_storage(x, 16)` starts each row of f on a 64-byte boundary for floats. The
    /// result does not change. Applies to Funcs that are not outputs.
    Func &align_storage(const Var &var, const Expr &alignment);
    /// Stores `var` in a circular buffer of `extent` points (a constant): point v lives at
    /// v mod extent. For a Func stored outside the loop it is computed in
    /// (`f.store_root().compute_at(g, y)`) whose region moves along `var` with that loop, so
    /// that only the last few rows are kept; sliding windows fold by themselves where the
    /// extent is a constant, this also where it is not, and with the factor chosen. Each
    /// computation's region must fit in `extent`: a RuntimeError otherwise says how much it
    /// needs. `fold_forward` says which way the region moves (Halide's argument; either works
    /// here, since every computation's region is checked). The result does not change.
    Func &fold_storage(const Var &var, const Expr &extent, bool fold_forward = true);
    /// Substitutes the Func's definition into every use (the default for Funcs without updates
    /// that are not outputs).
    Func &compute_inline();
    /// Where the Func's storage lives when it is not an output: Heap (allocated and freed where
    /// it is stored), Stack (on the thread's stack: the size must be a constant, e.g. through
    /// bound() or a producer of constant region; a runtime error otherwise says so), Register
    /// (as Stack: small constant arrays that LLVM then keeps in registers) or Auto (the stack
    /// for constant sizes up to 128 KiB, the heap otherwise).
    Func &store_in(MemoryType type);
    /// Keeps what this Func computes across runs: where it is realized again over the same
    /// region with the same values of what it reads that is not pixels (its Params, the shapes
    /// of its inputs, values given to memoize_tag), the realization is copied from a cache
    /// instead of computed. The cache key holds the Func's definition (and those of the Funcs
    /// it reads), the region, and the values of every Param and input shape these read;
    /// the contents of input buffers are not in it (add a version number with memoize_tag
    /// where they change). The cache is the process's, shared by every pipeline, with a size
    /// limit (dsl_memoization_cache_set_size, 1 MiB by default) past which the least recently
    /// used realizations go. The Func must have storage of its own where it is computed
    /// (compute_root() or compute_at() with store_at at the same loop) and run on the host.
    /// `eviction_key` (a scalar integer or handle computed where the Func is realized) tags the
    /// realizations stored, so that dsl_memoization_cache_evict(key) drops them.
    Func &memoize(const EvictionKey &eviction_key = EvictionKey());

    // Wrappers and clones.
    /// A Func that stands between this one and `consumer`: `wrapper(args) = this(args)`, and the
    /// calls `consumer` makes to this Func read the wrapper instead. It is named
    /// "<this>_in_<consumer>" and inlined until scheduled, so it changes nothing by itself; its
    /// schedule says where and how the values `consumer` reads are copied (a tile of this Func
    /// gathered into a small buffer per tile, vectorized differently than this Func is computed,
    /// ...). Calling in(consumer) again returns the same wrapper. The wrapper's pure Vars are
    /// this Func's.
    Func in(const Func &consumer);
    /// One wrapper that replaces the calls of all the listed consumers.
    Func in(const std::vector<Func> &consumers);
    /// The wrapper of every call to this Func except those that in(consumer) or clone_in
    /// redirected, and except the calls of other wrappers. Named "<this>_global_wrapper".
    Func in();
    /// A copy of this Func (its definitions and its schedule as they are now) named
    /// "<this>_clone_in_<consumer>", which the calls `consumer` makes to this Func read instead:
    /// the two can then be scheduled apart (each consumer computing its own copy at its own
    /// loops). Calling clone_in(consumer) again returns the same copy.
    Func clone_in(const Func &consumer);
    /// One copy that replaces the calls of all the listed consumers.
    Func clone_in(const std::vector<Func> &consumers);

    // Tracing: each prints a line per event as the pipeline runs, in the format of
    // dsl/Print.h: "Store f.0(3, 4) = 7" (the .0 is the Tuple element), "Load f.0(<0, 1, 2,
    // 3>, <4, 4, 4, 4>) = <...>" (a vector access gives its lanes, and each coordinate per
    // lane), "Begin realization f.0(min0, extent0, min1, extent1)" ... "End realization
    // f.0(...)", between "Begin pipeline out.0()" and "End pipeline out.0()". A custom_trace
    // handler (dsl/JIT.h) or dsl_set_trace_handler receives the events as dsl_trace_event_t
    // instead. Tracing prevents no schedule; it shows the order the schedule computes in.
    /// Prints every value stored into this Func.
    Func &trace_stores();
    /// Prints every value other Funcs read of this Func.
    Func &trace_loads();
    /// Prints where this Func's storage begins and ends (its region) and where each of its
    /// productions begins ("Produce f.0(...)" with the region computed).
    Func &trace_realizations();
    /// Adds a text to the trace: a tag event (dsl_trace_tag, "Tag f.0() tag = \"text\"") for
    /// each, right after the pipeline's begin event, in the order added (Halide's
    /// add_trace_tag). Tags are traced when something in the pipeline is.
    Func &add_trace_tag(const std::string &tag);

    // Running it (JIT).
    /// Computes the Func over [0, size) in each dimension. Without a target, for the one the
    /// last compile_jit() was given, else get_jit_target_from_environment() (DSL_JIT_TARGET or
    /// HL_JIT_TARGET, else this machine), as Halide does. Where the pipeline writes outside that
    /// region (an update that scatters, a split that rounds up), it computes into larger buffers
    /// and returns the region asked for, a crop of them (Halide's realize). The overloads that
    /// take a Realization compute into the caller's buffers, which must hold what is written.
    Realization realize(const std::vector<int> &sizes = {});
    Realization realize(const std::vector<int> &sizes, const Target &target);
    /// (Braced sizes, `{}` for none, are sizes rather than a Realization.)
    Realization realize(std::initializer_list<int> sizes) {
        return realize(std::vector<int>(sizes));
    }
    Realization realize(std::initializer_list<int> sizes, const Target &target) {
        return realize(std::vector<int>(sizes), target);
    }
    /// The same with the values of `params` in place of those its Params and ImageParams were
    /// set to, for this call only (ParamMap, dsl/Param.h): `f.realize({w, h}, target, {{gain,
    /// 2.0f}, {input, frame}})`. Calls on several threads may each bring their own.
    Realization realize(const std::vector<int> &sizes, const Target &target,
                        const ParamMap &params);
    Realization realize(std::initializer_list<int> sizes, const Target &target,
                        const ParamMap &params) {
        return realize(std::vector<int>(sizes), target, params);
    }
    void realize(const Realization &outputs, const Target &target, const ParamMap &params);
    /// The same with the handlers of `context` (dsl/JIT.h) in place of the Func's, where set.
    Realization realize(JITUserContext *context, const std::vector<int> &sizes = {});
    Realization realize(JITUserContext *context, const std::vector<int> &sizes,
                        const Target &target);
    void realize(JITUserContext *context, const Realization &outputs);
    void realize(JITUserContext *context, const Realization &outputs, const Target &target);
    /// The runtime's replacements when realize() runs this Func (dsl/JIT.h).
    JITHandlers &jit_handlers();
    /// Computes into existing buffers (their mins and extents say where); one per Tuple element.
    void realize(const Realization &outputs);
    void realize(const Realization &outputs, const Target &target);
    /// Into one buffer. (Templates, so that `f.realize({buffer}, target)`, a braced list, means
    /// a Realization of one buffer rather than either.)
    template <typename T, int D>
    void realize(const Buffer<T, D> &output) {
        realize(Realization({Buffer<>(output)}));
    }
    template <typename T, int D>
    void realize(const Buffer<T, D> &output, const Target &target) {
        realize(Realization({Buffer<>(output)}), target);
    }
    /// Lowers and compiles the pipeline now, so that the first realize() runs at once. realize()
    /// compiles when it must, so calling this is never required; it compiles again only after
    /// a Func's definition or schedule, or a Param's range, changed. What it compiles is the
    /// version for buffers dense in their first dimension (stride 1); the first realize() given
    /// a buffer that is not dense compiles the version for any strides, and both are kept.
    /// Code found in the JIT's disk cache (see README) under the key of the definitions is
    /// loaded instead, without lowering. realize() without a target then uses `target`.
    void compile_jit(const Target &target = get_jit_target_from_environment());
    /// Gives every ImageParam the pipeline reads that has no buffer (never set, or reset()) a
    /// new buffer of the region the pipeline needs of it to compute an output of `sizes` (or
    /// into `outputs`), with that region's mins: a bounds query through the compiled code,
    /// which computes nothing. ImageParams that have a buffer keep it. An output Buffer
    /// without memory (`Buffer<float>(nullptr, w, h)`) is asked too: its dimensions become the
    /// region the pipeline writes, as its constraints shape it.
    void infer_input_bounds(const std::vector<int> &sizes, const Target &target = Target::host());
    void infer_input_bounds(const Realization &outputs, const Target &target = Target::host());
    /// With `params` for this call: an ImageParam mapped to a Buffer is read from it; one
    /// mapped to a `Buffer<> *` gets the region there, and the ImageParam keeps its own.
    void infer_input_bounds(const std::vector<int> &sizes, const Target &target,
                            const ParamMap &params);
    void infer_input_bounds(const Buffer<> &output, const Target &target = Target::host());

    // Seeing the code.
    /// Prints the loops the schedule produces, e.g. "produce f: for y: for x: f(...) = ...".
    void print_loop_nest();
    /// The loop nest as text.
    std::string loop_nest();
    /// Writes the final lowered statement to `filename`.
    void compile_to_lowered_stmt(const std::string &filename);
    /// The same as text or as an HTML page (`HTML`) where every loop, production and branch
    /// folds open and shut. `args` (the order of an AOT function's arguments) change nothing in
    /// the statement; they are taken as Halide takes them.
    void compile_to_lowered_stmt(const std::string &filename, const std::vector<Argument> &args,
                                 StmtOutputFormat format = Text,
                                 const Target &target = Target::host());
    /// The final lowered statement as text.
    std::string lowered_stmt();
    /// Writes the optimised LLVM IR / the assembly the JIT would run, for `target`.
    void compile_to_llvm_ir(const std::string &filename, const Target &target = Target::host());
    void compile_to_assembly(const std::string &filename, const Target &target = Target::host());
    /// Writes the code of the pipeline's GPU kernels for `target`: OpenCL C for those on
    /// OpenCL, PTX for those on CUDA. A pipeline without GPU loops is a CompileError.
    void compile_to_device_code(const std::string &filename, const Target &target);

    // Compiling ahead of time: a library that runs without the compiler (the C ABI is in
    // dsl/runtime/dsl_runtime.h). `args` are the pipeline's Params and ImageParams in the order
    // the generated function takes them; one buffer per output value follows:
    //   int fn_name(dsl_buffer_t *input, float strength, dsl_buffer_t *output);
    // plus `int fn_name_argv(void **args)` and `const dsl_pipeline_metadata_t
    // *fn_name_metadata(void)`. An empty `fn_name` means the Func's name.
    /// Writes `<prefix>.a` (the pipeline and the runtime it needs: a C program links it with
    /// -lpthread -ldl) and its header `<prefix>.h`. Libraries for different pipelines link into
    /// one program.
    void compile_to_static_library(const std::string &prefix, const std::vector<Argument> &args,
                                   const std::string &fn_name = "",
                                   const Target &target = Target::host());
    /// Writes the pipeline alone as an object file (link it with the dsl::runtime library).
    void compile_to_object(const std::string &filename, const std::vector<Argument> &args,
                           const std::string &fn_name = "", const Target &target = Target::host());
    /// Writes the C header declaring the generated functions.
    void compile_to_header(const std::string &filename, const std::vector<Argument> &args,
                           const std::string &fn_name = "", const Target &target = Target::host());
    /// Writes `<prefix>.o` (as compile_to_object) and `<prefix>.h` (as compile_to_header).
    void compile_to_file(const std::string &prefix, const std::vector<Argument> &args,
                         const std::string &fn_name = "", const Target &target = Target::host());
    /// The assembly / the LLVM IR of the AOT function `fn_name` taking `args`, as
    /// compile_to_object compiles it (the forms without `args` write what the JIT runs).
    void compile_to_assembly(const std::string &filename, const std::vector<Argument> &args,
                             const std::string &fn_name, const Target &target = Target::host());
    void compile_to_assembly(const std::string &filename, const std::vector<Argument> &args,
                             const Target &target = Target::host());
    void compile_to_llvm_ir(const std::string &filename, const std::vector<Argument> &args,
                            const std::string &fn_name, const Target &target = Target::host());
    void compile_to_llvm_ir(const std::string &filename, const std::vector<Argument> &args,
                            const Target &target = Target::host());
    /// The LLVM bitcode of the AOT function, as compile_to_object compiles it.
    void compile_to_bitcode(const std::string &filename, const std::vector<Argument> &args,
                            const std::string &fn_name, const Target &target = Target::host());
    void compile_to_bitcode(const std::string &filename, const std::vector<Argument> &args,
                            const Target &target = Target::host());
    /// Writes several files of one compilation, each to its path:
    /// `f.compile_to({{OutputFileType::object, "f.o"}, {OutputFileType::c_header, "f.h"}},
    /// args, "f")`. Every type is checked before anything is written.
    void compile_to(const std::map<OutputFileType, std::string> &output_files,
                    const std::vector<Argument> &args, const std::string &fn_name,
                    const Target &target = Target::host());
    /// The Params and ImageParams the pipeline of this Func reads, in the order Halide lists
    /// them: the ImageParams by name, then the Params by name (what to pass as `args` to
    /// compile it ahead of time). Buffers read directly are not arguments.
    std::vector<Argument> infer_arguments() const;

    const std::shared_ptr<lang::FunctionContents> &contents() const { return contents_; }

  private:
    std::shared_ptr<lang::FunctionContents> contents_;
};

/// Computes an expression of no free variables now, through the JIT: `evaluate<int>(e)`. The
/// expression's type must be T (cast it first otherwise).
Buffer<> evaluate_to_buffer(const Expr &e, Type t);
template <typename T>
T evaluate(const Expr &e) {
    Buffer<T> b(evaluate_to_buffer(e, type_of<T>()));
    return b();
}
/// Computes every element of a Tuple of no free variables in one realization, writing element
/// i to `*out_i`: `evaluate(argmax_of_f(), &index, &value)`. Each element's type must be the
/// pointee's type.
Realization evaluate_tuple(const Tuple &t, const std::vector<Type> &types);
template <typename... T>
void evaluate(const Tuple &t, T *...out) {
    Realization r = evaluate_tuple(t, {type_of<T>()...});
    size_t i = 0;
    ((*out = Buffer<T>(r[i++])()), ...);
}
/// Halide's name for evaluate on a target that may have a GPU: the host computes it here.
template <typename T>
T evaluate_may_gpu(const Expr &e) {
    return evaluate<T>(e);
}
template <typename... T>
void evaluate_may_gpu(const Tuple &t, T *...out) {
    evaluate(t, out...);
}

/// select() of Tuples, element by element: `tuple_select(c, a, b)[i]` is `select(c, a[i],
/// b[i])`. The Tuples must have the same size. With a Tuple condition each element has its own.
Tuple tuple_select(const Expr &condition, const Tuple &true_value, const Tuple &false_value);
Tuple tuple_select(const Tuple &condition, const Tuple &true_value, const Tuple &false_value);
/// A chain, as for select(): `tuple_select(c0, t0, c1, t1, ..., otherwise)` picks the Tuple of
/// the first condition that holds (each condition an Expr, or a Tuple of one per element).
template <typename... Rest>
Tuple tuple_select(const Expr &c0, const Tuple &t0, const Expr &c1, const Tuple &t1,
                   const Rest &...rest) {
    return tuple_select(c0, t0, tuple_select(c1, t1, rest...));
}
template <typename... Rest>
Tuple tuple_select(const Tuple &c0, const Tuple &t0, const Tuple &c1, const Tuple &t1,
                   const Rest &...rest) {
    return tuple_select(c0, t0, tuple_select(c1, t1, rest...));
}

/// The value `id` picks from a list: `mux(c, {r, g, b})` is r where c is 0, g where c is 1, b
/// where c is 2; an `id` below 0 picks the first value and one past the end the last. The
/// values must have one type (constants take the first value's). A Tuple, `mux(c, f(x))` with
/// f Tuple-valued, picks one of its elements.
Expr mux(const Expr &id, const std::vector<Expr> &values);
Expr mux(const Expr &id, std::initializer_list<Expr> values);
Expr mux(const Expr &id, const Tuple &values);

/// A Func of the listed Vars with the value `e`: `lambda(x, y, x + y)` is `f` with
/// `f(x, y) = x + y`. Without Vars, the implicit variables `e` uses are the arguments:
/// `lambda(g(_) * 2)` is `f(_) = g(_) * 2` (a Func of no arguments if `e` uses none).
Func lambda(const Expr &e);
Func lambda(const Var &x, const Expr &e);
Func lambda(const Var &x, const Var &y, const Expr &e);
Func lambda(const Var &x, const Var &y, const Var &z, const Expr &e);
Func lambda(const Var &x, const Var &y, const Var &z, const Var &w, const Expr &e);

}  // namespace dsl
