// The autoscheduler's schedules for the fuzzer's pipelines (make_auto_case, RandomPipeline.h):
// each random pipeline, with no schedule of its own, is given estimates of its output's size
// (or, one case in four, of a smaller size, so that the schedule's tiles and strips do not fit
// the realized region: a larger one is not a legal use where the schedule has register tiles,
// whose last tile shifts inwards and needs the output at least a tile large) and scheduled by
// Pipeline::auto_schedule for a machine of 1, 2 or 8 threads; its schedule source is the case's
// schedule code.
#include <random>
#include <sstream>

#include "RandomPipeline.h"
#include "dsl/dsl.h"

namespace dsl::fuzz {

FuzzCase make_auto_case(uint64_t seed) {
    FuzzCase c = make_unscheduled_case(seed);
    std::mt19937_64 rng(seed * 7919 + 13);
    const int threads[] = {1, 2, 8};
    MachineParams params(threads[rng() % 3], (1u + rng() % 32) << 20, 40);
    std::vector<int> estimate = c.output_size;
    if (rng() % 4 == 0) {
        for (int &e : estimate)
            e = std::max(1, static_cast<int>(e * (2 + rng() % 9) / 10));
    }
    std::vector<Var> args = c.output.args();
    for (size_t d = 0; d < args.size() && d < estimate.size(); d++)
        c.output.set_estimate(args[d], 0, estimate[d]);
    Pipeline p(c.output);
    AutoSchedulerResults r = p.auto_schedule(c.target, params);
    std::ostringstream code;
    code << "// auto_schedule for " << params.to_string() << ", estimates";
    for (int e : estimate)
        code << " " << e;
    code << ":\n";
    code << "Pipeline pipeline(" << c.output.name() << ");\n";
    for (size_t d = 0; d < args.size() && d < estimate.size(); d++) {
        code << c.output.name() << ".set_estimate(Var(\"" << args[d].name() << "\"), 0, "
             << estimate[d] << ");\n";
    }
    code << r.schedule_source;
    c.schedule_code = code.str();
    c.auto_scheduled = true;
    return c;
}

}  // namespace dsl::fuzz
