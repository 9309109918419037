#pragma once
/// The autoscheduler's loops for a GPU target (docs/autoschedule.md, "GPU targets"): the
/// heuristic decides what is inlined and how Funcs are grouped as for a CPU, with a block's tile
/// in place of a strip and GPU shared memory in place of the cache; this file turns each group
/// into a kernel.

#include <cstdint>
#include <set>
#include <string>

#include "autoschedule/Channels.h"
#include "autoschedule/Heuristic.h"
#include "autoschedule/Model.h"
#include "autoschedule/ScheduleWriter.h"

namespace dsl::autoschedule {

/// A block's tile of a Func's first two dimensions: `x` x `y` threads.
struct GpuTile {
    int x = 32, y = 8;
};
/// The largest tile the knobs allow (Knobs::gpu_tile_x, gpu_tile_y; by default 32 x 8).
GpuTile gpu_tile_limit(const Knobs &k);
/// The tile of a region: as many columns as `most.x` at most, and rows to `most.x * most.y`
/// threads in all (fewer columns across a narrower first dimension, more rows then); of one
/// dimension, `most.x * most.y` points. `within`: no larger than the region (a tile that shifts
/// inwards must fit in it).
GpuTile gpu_tile_for(const Box &region, bool within, const GpuTile &most = GpuTile());
/// The points of `f` one block computes: the tile of its first two dimensions that are not
/// channel loops, its channel loops whole, one point of the others.
Box gpu_block_box(const FuncInfo &f, const Channels &channels, const GpuTile &most);
/// How many blocks cover `f`'s region.
int64_t gpu_blocks_of(const FuncInfo &f, const Channels &channels, const GpuTile &most);

/// Whether the pure definition of `root` reads `member` (directly or through the Funcs of
/// `inlined`) only at its own Vars plus constants, so that the region of `member` a block of
/// whole tiles needs has a constant size the compiler can see. (A clamped coordinate, a
/// boundary condition's, has none; neither has one read by another Func computed per block.)
bool read_at_offsets(const Model &m, const std::set<std::string> &inlined, const std::string &root,
                     const std::string &member);

/// Shared memory a block's producers may take (of the 48 KiB a block may have).
constexpr int64_t kGpuSharedBytes = 32 << 10;
/// Threads per block at most.
constexpr int64_t kGpuMaxThreads = 1024;

/// Schedules every group of `plan` for the GPU: its root computed at root in tiles of
/// gpu_tile_for(region, ..., most), the tiles' points as the threads of blocks (dimensions past the
/// second fused into the third block dimension, channel loops unrolled in each thread, the last
/// tiles guarded so that any size runs); its Strip Funcs computed per block into shared memory by
/// the block's threads, the root's last tiles then shifting inwards (its region must hold a
/// tile, as its estimates do); updates tiled over their pure loops with their RVars in each thread,
/// and updates with no pure loop left on the host. `inlined` are the Funcs inlined.
void schedule_gpu_groups(const Model &m, ScheduleWriter &w, const Plan &plan,
                         const Channels &channels, const std::set<std::string> &inlined,
                         const GpuTile &most);

}  // namespace dsl::autoschedule
