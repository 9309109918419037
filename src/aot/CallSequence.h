#pragma once
/// Several lowered pipelines compiled ahead of time into one object, behind one entry point that
/// calls them in a fixed order on buffers it describes itself: its own arguments, blocks of one
/// static arena, or constant data carried in the object. The entry point is
///   int name(dsl_buffer_t *arg0, ..., dsl_buffer_t *argN)
/// and returns 0, or the first non-zero status of a pipeline (which has reported its error). The
/// arguments are checked first against their SequenceBuffer (type, dimensions, extents, stride 1
/// in dimension 0), each mismatch reported (dsl_runtime_report_error) in the sequence's terms;
/// an argument that is NULL or has no host memory is refused with
/// dsl_error_buffer_argument_is_null: the sequence answers no bounds queries. The pipelines are
/// private to the object. The NN layer compiles a model through it (DESIGN.md §8).

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/CodeGenLLVM.h"
#include "dsl/Type.h"
#include "ir/Module.h"

namespace dsl::aot {

/// A buffer the entry point passes to a pipeline. Arena and constant buffers are dense (the
/// stride of dimension d is the product of the extents below it); arguments are checked to have
/// `type` and `extents`.
struct SequenceBuffer {
    enum class Kind { Argument, Arena, Constant };
    Kind kind = Kind::Arena;
    Type type;
    std::vector<int> extents;    ///< innermost first
    int argument = -1;           ///< Argument: which of the entry point's arguments
    int64_t offset = 0;          ///< Arena: the byte offset of its first element
    const void *data = nullptr;  ///< Constant: its elements (copied into the object)
};

/// One call: `function` (a function of the pipelines' module) with, for each of its arguments
/// in order, the index of a buffer of the sequence. Pipelines with scalar arguments are not
/// supported.
struct SequenceCall {
    std::string function;
    std::vector<int> buffers;
    /// In a sequence on a GPU: the pipeline launches no kernel, so the sequence brings the
    /// buffers it reads to the host first (a no-op where the host's copy is current) and marks
    /// the ones it writes (`writes`, parallel to `buffers`) newer on the host after.
    bool on_host = false;
    std::vector<bool> writes;
};

struct CallSequence {
    std::string name;  ///< the entry point, a C identifier
    /// The entry point's dsl_buffer_t * arguments, by name (for messages).
    std::vector<std::string> arguments;
    std::vector<SequenceBuffer> buffers;
    int64_t arena_bytes = 0;
    std::vector<SequenceCall> calls;
    /// Whether pipelines launch GPU kernels. The arena's and the constants' buffers then keep
    /// their device copies from call to call; the arguments do not: on return (failed or not),
    /// the outputs (`outputs`, indices of arguments) are copied back to the host, and the
    /// arguments' device copies are released, so that the caller's buffers are plain host
    /// memory before and after.
    bool gpu = false;
    std::vector<int> outputs;
};

/// The object file (its bytes) holding `pipelines`, compiled for `target`, and the entry point
/// of `sequence`.
std::string compile_call_sequence(const ir::Module &pipelines, const CallSequence &sequence,
                                  const codegen::CpuTarget &target);

}  // namespace dsl::aot
