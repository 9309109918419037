// Pooled blocks for intermediate tensors.
#include "nn/model/MemoryPool.h"

#include <cstdlib>

#include "ir/Error.h"

namespace dsl::nn::model {

Buffer<> MemoryPool::allocate(Type t, const std::vector<int> &sizes, const std::string &name) {
    std::vector<dsl_dimension_t> dims;
    int64_t n = 1;
    for (int s : sizes) {
        dims.push_back({0, s, static_cast<int32_t>(n), 0});
        n *= s;
    }
    // At least one element, rounded up to whole cache lines.
    const size_t bytes = (static_cast<size_t>(std::max<int64_t>(n, 1) * t.bytes()) + 63) / 64 * 64;
    Block block;
    size_t size = bytes;
    auto it = free_.lower_bound(bytes);
    if (it != free_.end()) {
        size = it->first;
        block = it->second;
        free_.erase(it);
    } else {
        void *p = std::aligned_alloc(64, bytes);
        internal_assert(p) << "out of memory allocating " << bytes << " bytes for tensor " << name;
        block = Block(static_cast<uint8_t *>(p), std::free);
        reserved_bytes_ += static_cast<int64_t>(bytes);
    }
    used_[block.get()] = {size, block};
    in_use_bytes_ += static_cast<int64_t>(size);
    peak_bytes_ = std::max(peak_bytes_, in_use_bytes_);
    return Buffer<>(t, block.get(), dims, name);
}

void MemoryPool::release(const Buffer<> &b) {
    auto it = used_.find(b.data());
    if (it == used_.end()) return;
    in_use_bytes_ -= static_cast<int64_t>(it->second.first);
    free_.insert({it->second.first, it->second.second});
    used_.erase(it);
}

}  // namespace dsl::nn::model
