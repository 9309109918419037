// A second process for the disk cache's tests (test/correctness/DiskCachePipelineTest.cpp):
// realizes test::disk_cache_blur(<schedule>) with the disk cache that the environment
// configures, checks the result against a plain loop, and prints what the JIT did:
//
//   disk_cache_process <schedule>
//   -> "hits 1 misses 0 rejected 0 stores 0 compilations 1 lowerings 0 errors 0"
//
// Exit status 0 when every pixel is right, 1 when one is wrong, 2 on an exception.
#include <cstdlib>
#include <iostream>

#include "DiskCachePipelines.h"
#include "lang/Realize.h"

int main(int argc, char **argv) {
    using namespace dsl;
    if (argc != 2) {
        std::cerr << "usage: disk_cache_process <schedule 0-2>\n";
        return 2;
    }
    try {
        Buffer<uint16_t> in = test::disk_cache_input();
        Func blur = test::disk_cache_blur(in, std::atoi(argv[1]));
        Buffer<uint16_t> out = blur.realize({test::kDiskCacheWidth, test::kDiskCacheHeight});
        int errors = test::disk_cache_blur_errors(out);
        lang::JITCounters c = lang::jit_counters();
        std::cout << "hits " << c.disk_cache_hits << " misses " << c.disk_cache_misses
                  << " rejected " << c.disk_cache_rejected << " stores " << c.disk_cache_stores
                  << " compilations " << c.compilations << " lowerings " << c.lowerings
                  << " errors " << errors << std::endl;
        return errors == 0 ? 0 : 1;
    } catch (const std::exception &e) {
        std::cerr << "disk_cache_process: " << e.what() << "\n";
        return 2;
    }
}
