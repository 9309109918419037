#pragma once
/// The LLVM code generator class, shared by the files of src/codegen. Includes LLVM headers: only
/// codegen's own .cpp files may include it.

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "codegen/CodeGenLLVM.h"
#include "ir/IRVisitor.h"
#include "ir/Scope.h"

namespace dsl::codegen {

/// Generates one LLVM function (plus its argv wrapper) per lowered function. Expressions are
/// compiled by the `visit` overloads in CodeGenExpr.cpp, statements by those in CodeGenStmt.cpp.
class CodeGenLLVM : public ir::IRVisitor {
  public:
    /// Which dynamic (run-time indexed) lane permutations the target has in one instruction;
    /// see dynamic_permute. x86 only; all false elsewhere.
    struct X86Features {
        bool ssse3 = false, avx2 = false, avx512f = false, avx512bw = false, avx512vl = false,
             avx512vbmi = false, avx512vnni = false;
    };

    CodeGenLLVM(llvm::LLVMContext &context, llvm::Module &module, X86Features x86);
    ~CodeGenLLVM() override;

    void compile_function(const ir::LoweredFunc &f);
    /// Marks the float operations it generates as contractible (the target's fp_contract; the
    /// target machine fuses only those), except inside strict_float.
    void set_fp_contract(bool on) {
        llvm::FastMathFlags flags;
        flags.setAllowContract(on);
        builder_->setFastMathFlags(flags);
    }
    /// One GPU kernel as a PTX entry function of the module (CodeGenPTX.cpp).
    void compile_kernel(const ir::GPUKernel &k);
    /// The programs holding the GPU kernels in the module, per API (globals of the given size
    /// in bytes, not counting a terminating NUL); null where the module has none.
    struct GPUPrograms {
        llvm::Value *opencl = nullptr, *ptx = nullptr;
        uint64_t opencl_bytes = 0, ptx_bytes = 0;
    };
    /// The GPU kernels the functions launch (each with its API resolved) and their programs;
    /// see CodeGenGPUHost.cpp.
    void set_gpu_kernels(const std::vector<ir::GPUKernel> *kernels, GPUPrograms programs) {
        gpu_kernels_ = kernels;
        gpu_programs_ = programs;
    }

  protected:
    using ir::IRVisitor::visit;
#define DSL_DECLARE_VISIT(T) void visit(const ir::T *op) override;
    DSL_FOR_EACH_EXPR_NODE(DSL_DECLARE_VISIT)
    DSL_FOR_EACH_STMT_NODE(DSL_DECLARE_VISIT)
#undef DSL_DECLARE_VISIT

  private:
    llvm::Value *codegen(const Expr &e);
    void codegen(const ir::Stmt &s);
    llvm::Value *lookup(const std::string &name) const;
    void compile_argv_wrapper(const ir::LoweredFunc &f, llvm::Function *target);
    /// Continues if `ok`; otherwise returns the error code of `reporter(args...)`, a runtime
    /// function that reports the error (see runtime/Runtime.h).
    void return_error_unless(llvm::Value *ok, const std::string &reporter,
                             const std::vector<llvm::Value *> &args);

    // Types
    llvm::Type *llvm_type(Type t) const;
    /// The in-memory type of a value of type `t` (bools are bytes).
    llvm::Type *memory_type(Type t) const;
    /// The type a scalar argument of a pipeline function travels as: 16-bit floats as their
    /// bits (i16, the C header's uint16_t), anything else as llvm_type.
    llvm::Type *argument_type(Type t) const;
    llvm::StructType *dsl_buffer_type();
    llvm::StructType *dsl_dimension_type();

    // Helpers
    llvm::Value *splat(llvm::Value *v, int lanes);
    llvm::Value *constant_int(Type t, int64_t v);
    llvm::Function *intrinsic(llvm::Intrinsic::ID id, llvm::ArrayRef<llvm::Type *> types);
    bool is_narrow_float(Type t) const;
    llvm::Value *widen_float(llvm::Value *v, Type t);
    llvm::Value *narrow_float(llvm::Value *v, Type from, Type to);
    /// Applies a float operation, computing narrow floats in float32 and rounding back.
    llvm::Value *float_op(Type t, llvm::Value *a, llvm::Value *b,
                          llvm::Value *(CodeGenLLVM::*op)(llvm::Value *, llvm::Value *));
    llvm::Value *fadd(llvm::Value *a, llvm::Value *b);
    llvm::Value *fsub(llvm::Value *a, llvm::Value *b);
    llvm::Value *fmul(llvm::Value *a, llvm::Value *b);
    llvm::Value *fdiv(llvm::Value *a, llvm::Value *b);
    /// Float modulo, `a - b * floor(a / b)` with every step rounded to `t`.
    llvm::Value *float_mod(Type t, llvm::Value *a, llvm::Value *b);
    llvm::Value *fmin(llvm::Value *a, llvm::Value *b);
    llvm::Value *fmax(llvm::Value *a, llvm::Value *b);
    llvm::Value *int_div(Type t, llvm::Value *a, llvm::Value *b);
    llvm::Value *int_mod(Type t, llvm::Value *a, llvm::Value *b);
    llvm::Value *compare(ir::IRNodeType op, Type t, llvm::Value *a, llvm::Value *b);
    llvm::Value *cast(Type from, Type to, llvm::Value *v);
    llvm::Value *shift(bool left, Type t, Type amount_type, llvm::Value *a, llvm::Value *amount);
    llvm::Value *call_intrinsic(const ir::Call *op);
    /// The Print intrinsic: one line through the runtime's print handler (CodeGenPrint.cpp).
    llvm::Value *call_print(const ir::Call *op);
    /// print() inside a CUDA kernel: the device's vprintf.
    llvm::Value *call_kernel_print(const ir::Call *op);
    llvm::Value *call_require(const ir::Call *op);
    /// The values of `args` from `first` on, in 64-bit slots on the stack, and the table of
    /// their kinds and lanes, for the runtime's formatting (runtime/Print.c). With `lane` >= 0,
    /// only that lane of each vector value (scalars as they are).
    std::pair<llvm::Value *, llvm::Value *> print_slots(const std::vector<Expr> &args, size_t first,
                                                        const std::vector<llvm::Value *> &values,
                                                        int lane = -1);
    /// The Trace intrinsic: one dsl_trace_event_t through the runtime (CodeGenTrace.cpp).
    llvm::Value *call_trace(const ir::Call *op);
    /// MemoizationLookup and MemoizationStore: calls of the runtime's memoization cache
    /// (CodeGenMemoization.cpp).
    llvm::Value *call_memoization(const ir::Call *op);
    llvm::Value *math_call(const ir::Call *op, llvm::Value *x, llvm::Value *y);
    llvm::Value *element_pointer(const std::string &buffer, Type t, llvm::Value *index);
    /// A scalar element index as a 64-bit value. The additions, subtractions, multiplications,
    /// minima and maxima of a 32-bit index are done in 64 bits (they cannot overflow there, and
    /// in 32 bits an overflow is already undefined), with the leaves sign-extended: LLVM then
    /// folds the constant offsets into the addressing mode and widens the loop counters, where
    /// a 32-bit sum would need a sign extension per access and keep a 32-bit induction variable.
    llvm::Value *index_value(const Expr &index);
    /// One term of index_value's sum (not a sum or a constant multiple), in 64 bits.
    llvm::Value *linear_term_value(const Expr &index);
    /// Marks a load or store of `buffer` with type-based alias information: each allocation of
    /// the pipeline is its own type, and every buffer from outside (inputs, outputs) shares one,
    /// so LLVM knows that a store to a register tile on the stack changes nothing it loads from
    /// another buffer (its own analysis gives up on allocations with many uses).
    void tag_buffer_access(llvm::Value *access, const std::string &buffer);
    /// A load of every lane at a small constant stride other than 1, as a dense load and a
    /// shuffle; null when the load is not one.
    llvm::Value *strided_load(const ir::Load *op);
    /// A predicated gather of lanes narrower than 32 bits, as one branch and an unmasked gather
    /// (see CodeGenExpr.cpp).
    llvm::Value *narrow_masked_gather(const ir::Load *op, llvm::Type *mem, llvm::Align align);
    /// A load at `clamp(ramp(b, s, n), lo, hi) + c` (s a constant from 1 to 4; lo, hi and c the
    /// same in every lane: a boundary condition's clamp in a loop's edge iterations) as masked
    /// dense loads of the elements the lanes read and permutations that repeat the edge
    /// element; null when the load is not one or the target has no permutation for its type
    /// (ClampedLoads.cpp).
    llvm::Value *clamped_ramp_load(const ir::Load *op);
    /// A load of every lane at base + a constant offset + a constant multiple of one scalar
    /// stride per lane (an aligned upsampling's x16(b) + <0, 0, 1, 1, ...>, a transposed
    /// convolution's interleave of phase planes) as a dense load per run of lanes that share
    /// the multiple and a shuffle; null when the load is not one (PlanarLoads.cpp).
    llvm::Value *planar_load(const ir::Load *op);
    void sum_terms(const Expr &e, bool negated, std::vector<std::pair<Expr, bool>> &terms) const;
    /// The target's one-instruction permutation of `lanes` lanes of `bits` bits by run-time
    /// indices, or not_intrinsic.
    llvm::Intrinsic::ID permute_intrinsic(int bits, int lanes) const;
    /// Lane i of the result is lane index[i] of `v` (index: i32 lanes in [0, lanes)); null when
    /// the target has no one-instruction permutation for v's type.
    llvm::Value *dynamic_permute(llvm::Value *v, llvm::Value *index);
    /// The vectors (or one-lane vectors) `parts` end to end, in order; any widths.
    llvm::Value *concat_vectors(std::vector<llvm::Value *> parts);
    llvm::Value *vector_reduce(ir::VectorReduce::Op op, Type elem, llvm::Value *v);
    /// `accumulator + op` (accumulator may be undefined: 0) when op sums groups of products of
    /// integers widened to int32 from at most 16 bits, by the target's dot-product
    /// instructions (vpdpbusd, vpmaddwd); null otherwise (DotProducts.cpp).
    llvm::Value *dot_product(const Expr &accumulator, const ir::VectorReduce *op);
    /// `u8(spread(v) >> repeat(ramp(0, 8, 4)))` of 32-bit words v (each word's bytes in order,
    /// as a word-packed operand of a dot product reads them) as a bitcast of v; null otherwise
    /// (DotProducts.cpp).
    llvm::Value *bytes_of_words(const ir::Cast *op);

    X86Features x86_;
    llvm::LLVMContext &context_;
    llvm::Module &module_;
    std::unique_ptr<llvm::IRBuilder<>> builder_;
    llvm::Function *function_ = nullptr;
    llvm::StructType *buffer_type_ = nullptr;
    llvm::StructType *dimension_type_ = nullptr;
    ir::Scope<llvm::Value *> symbols_;
    /// A vector int32 let whose value holds a min or max (a clamp CSE has shared among loads),
    /// with what the names its value uses were bound to where it was bound: clamped_ramp_load
    /// looks through the let when those bindings still hold at the load.
    struct ClampLet {
        Expr value;
        std::vector<std::pair<std::string, llvm::Value *>> uses;
    };
    ir::Scope<ClampLet> clamp_lets_;
    /// A scalar int32 let of index arithmetic (sums, products, quotients, mins...), bound the same
    /// way: index_value looks through it, so that an index that CSE wrote through lets and the
    /// same index written out become one sum (a load and the store of one element then have
    /// one address, which LLVM can keep in a register across a loop).
    ir::Scope<ClampLet> index_lets_;
    /// How many lets index_value is looking through now (it stops at a few).
    int index_let_depth_ = 0;
    /// The buffer whose stores are atomic read-modify-writes here (inside an ir::Atomic), and,
    /// while an atomic store's compare-and-swap loop computes its new value, the running value
    /// that replaces the load of the element it updates (Atomics.cpp).
    std::string atomic_buffer_;
    struct AtomicOld {
        std::string buffer;
        Expr index;
        llvm::Value *value = nullptr;
    } atomic_old_;
    /// A scalar store to atomic_buffer_ as one atomic instruction (atomicrmw) when it adds,
    /// subtracts, or takes the min or max of a term, else as a compare-and-swap loop.
    void atomic_store(const ir::Store *op);
    /// The value of the let `name` if it is in clamp_lets_ and every name its value uses is
    /// still bound as it was; undefined otherwise.
    Expr clamp_let_value(const std::string &name) const;
    /// The same for index_lets_, while index_value may still look through one more let.
    Expr index_let_value(const std::string &name) const;
    /// The let's value if every name it uses is still bound as it was; undefined otherwise.
    Expr still_bound(const ClampLet *let) const;
    /// The result of the expression just visited.
    llvm::Value *value_ = nullptr;
    /// Heap allocations live at the current point; an early error return frees them.
    std::vector<llvm::Value *> live_heap_;
    /// The allocations in scope (by name, with their nesting count), and the alias tags made.
    std::map<std::string, int> allocations_in_scope_;
    llvm::MDNode *tbaa_root_ = nullptr;
    std::map<std::string, llvm::MDNode *> tbaa_tags_;
    /// The intrinsics of GPU offload (launches, copies, device buffers) on the host side;
    /// null when `op` is none of them (CodeGenGPUHost.cpp).
    llvm::Value *call_gpu_intrinsic(const ir::Call *op);
    /// The intrinsics of extern stages (descriptors, addresses, bounds queries); null when
    /// `op` is none of them (CodeGenExternStages.cpp).
    llvm::Value *call_extern_stage_intrinsic(const ir::Call *op);
    /// Continues if `status` is 0; otherwise returns it (the runtime reported the error), or
    /// what `error_code` returns (code emitted on the failing path: a report of the error).
    void return_unless_zero(llvm::Value *status, const std::string &what,
                            const std::function<llvm::Value *()> &error_code = nullptr);
    const std::vector<ir::GPUKernel> *gpu_kernels_ = nullptr;
    GPUPrograms gpu_programs_;
    /// Whether a GPU kernel is being generated (GPU indices read the PTX special registers).
    bool in_kernel_ = false;
    /// The kernel's dynamic shared allocations (GPUKernel::dynamic_shared): generic pointers to
    /// their places in the launch's dynamic shared memory, by name.
    std::map<std::string, llvm::Value *> dynamic_shared_;
    /// Outlines the body of a parallel loop into a task and runs it on the runtime's pool.
    void codegen_parallel_loop(const ir::For *op);
    /// `bytes` (an i64) from the runtime's malloc, named `name`; returns an out-of-memory error
    /// naming it when there is none.
    llvm::Value *heap_allocate(const std::string &name, llvm::Value *bytes);
    /// The runtime's free of `pointer` (null frees nothing), where `at` inserts.
    void heap_free(llvm::IRBuilderBase &at, llvm::Value *pointer);
    /// Returns `code` after freeing every live heap allocation and the function's stack slots.
    void return_freeing_heap(llvm::Value *code);
    /// Memory for a Stack (or Register) allocation whose size is known only at run time
    /// (CodeGenStackSlots.cpp): `bytes` on the stack when small, else in a slot of this
    /// function, heap memory that grows as needed and is freed when the function returns.
    /// `saved_stack` receives the stack pointer to restore where the allocation ends.
    llvm::Value *dynamic_stack_allocation(const ir::Allocate *op, llvm::Value *bytes,
                                          llvm::Value **saved_stack);
    /// Where the current function ends normally: frees its stack slots there and before each
    /// of its early returns.
    void free_stack_slots();
    /// A slot of the current function's pseudostack: the allocas that hold its memory and its
    /// capacity in bytes.
    struct StackSlot {
        llvm::Value *memory = nullptr, *bytes = nullptr;
    };
    /// Gives the slot of the allocation `name`, if it has one, back to the function's free
    /// slots: the buffer is dead from here on (a Free, or the end of the allocation).
    void release_stack_slot(const std::string &name);
    /// The current function's stack slots, those of its allocations still live (by name) and
    /// those free to take, and its early (error) returns so far.
    struct StackSlots {
        std::vector<StackSlot> all, free;
        std::map<std::string, StackSlot> live;
    };
    StackSlots stack_slots_;
    std::vector<llvm::Instruction *> early_returns_;
};

}  // namespace dsl::codegen
