#pragma once
/// The key of a pipeline before lowering: text that determines everything lowering reads, so
/// that two pipelines with the same key lower to the same code. The JIT's disk cache stores
/// compiled pipelines under it, and a process that finds its pipeline there runs it without
/// lowering (lang/Realize.cpp).
///
/// It serialises, for every Func the output reaches (through calls, RDom bounds and conditions,
/// specialization conditions and schedule expressions), its name, arguments, output types, every
/// definition (left and right sides, predicate, reduction domain, specializations) and its whole
/// schedule (splits, loops, compute and store levels, bounds, storage order, memory type); for
/// every Param its name, type, kind, dimensions, range and an ImageParam's constraints; the
/// constraints on the output's buffers; for every input buffer its name, element type and
/// dimensions. Funcs, Params, reduction domains and buffers are numbered in the
/// order they are first met, so the key depends on none of their addresses. Param values and
/// buffer contents are arguments of the compiled code and are not part of it.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lang/Function.h"
#include "lowering/BufferChecks.h"

namespace dsl::lang {

/// How a key writes the names of Funcs, Params and buffers.
enum class KeyNames {
    AsGiven,
    /// The names of Funcs, Params, buffers, reduction domains, and the pure and split
    /// variables of Funcs, numbered by kind in the order they are met ("#F0", "#P1", "#B0",
    /// "#R0", "#V2"): two pipelines that differ only in those names have one key, and one
    /// compiled function serves both. Each of those names inside a longer one, between '.' or
    /// '_' and the ends ("f.s0.x", "f_a0", "f_a0_g_a1"), is renamed in it; the names of the C
    /// functions and intrinsics a pipeline calls, and other text (messages, tags), are kept.
    /// Pipelines with a name holding '#' get an AsGiven key.
    Canonical,
};

struct DefinitionKey {
    std::string text;
    /// Every Param, ImageParam and Buffer the pipeline's definitions and schedules use, by name
    /// (by its canonical name with KeyNames::Canonical): the inputs a stored pipeline's
    /// arguments are found among.
    std::map<std::string, lowering::PipelineInput> inputs;
    /// With KeyNames::Canonical, each Func's, Param's and buffer's name -> its canonical one.
    std::map<std::string, std::string> canonical;

    /// `name` as the key writes it (unchanged with KeyNames::AsGiven).
    std::string rename(const std::string &name) const;
};

/// The key of the pipeline that computes `output`, or nothing when it cannot be made: a Func it
/// calls no longer exists, or two different inputs share a name. Lowering reports those errors.
std::optional<DefinitionKey> definition_key(const Function &output,
                                            KeyNames names = KeyNames::AsGiven);
/// The same for a pipeline of several outputs (in order).
std::optional<DefinitionKey> definition_key(const std::vector<Function> &outputs,
                                            KeyNames names = KeyNames::AsGiven);

}  // namespace dsl::lang
