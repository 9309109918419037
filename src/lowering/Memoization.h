#pragma once
/// Memoized Funcs (Func::memoize): a realization kept in the runtime's cache across runs and
/// copied back where the same key comes again (runtime/Memoization.c).
///
/// The key of a memoized Func is its definition's id (a hash of its definitions and of those
/// of the Funcs it reads, not of its name, so that a clone shares its entries), the region it
/// computes (the buffers handed to the runtime carry it), and the values of what its values
/// depend on besides pixels: the Params and input shapes its definitions and those of the
/// Funcs it reads use, and the keys of memoize_tag, whose result's own reads are left out.

#include <map>
#include <string>
#include <vector>

#include "lowering/Environment.h"

namespace dsl::lowering {

struct MemoizationKey {
    /// The definition's id, the same for copies of one definition.
    std::string id;
    /// Scalars computed where the Func is realized (no Var or RVar of a definition in them).
    std::vector<Expr> values;
    /// Func::memoize(EvictionKey(e)): e, else undefined.
    Expr eviction_key;
};

/// The keys of the memoized Funcs of `env` (those with storage of their own; a memoized Func
/// that is inlined or an output is refused by name), after which every memoize_tag is taken
/// out of the definitions of `env` (its result stays). Call after `realization_order`.
std::map<std::string, MemoizationKey> memoization_keys(Environment &env);

/// Wraps the production of each memoized Func in `s` (after bounds inference and skip stages):
/// a lookup that copies a kept realization into its storage, else the production followed by
/// a store of what it computed. Refuses (naming the Func) a memoized Func whose storage is
/// made outside the loop that computes it, or that runs on a device.
ir::Stmt add_memoization(const Environment &env, const std::map<std::string, MemoizationKey> &keys,
                         const ir::Stmt &s);

}  // namespace dsl::lowering
