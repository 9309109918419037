// Pipeline::auto_schedule and MachineParams (dsl/AutoSchedule.h): resets the Funcs' schedules,
// builds the model, lets the heuristic schedule them, and returns the schedule as source.
#include <unistd.h>

#include <sstream>

#include "autoschedule/Heuristic.h"
#include "autoschedule/Host.h"
#include "autoschedule/Model.h"
#include "autoschedule/ScheduleWriter.h"
#include "dsl/Pipeline.h"
#include "ir/Error.h"
#include "lang/Function.h"

namespace dsl {

MachineParams::MachineParams(const std::string &s) {
    std::istringstream in(s);
    char c1 = 0, c2 = 0;
    double b = 0;
    long long llc = 0;
    in >> parallelism >> c1 >> llc >> c2 >> b;
    user_assert(in && c1 == ',' && c2 == ',' && parallelism > 0 && llc > 0 && b > 0)
        << "MachineParams: cannot read \"" << s
        << "\"; write three positive numbers: parallelism,last_level_cache_size,balance "
           "(e.g. \"16,16777216,40\").";
    last_level_cache_size = static_cast<uint64_t>(llc);
    balance = static_cast<float>(b);
}

MachineParams MachineParams::generic() {
    return MachineParams(16, 16u << 20, 40);
}

MachineParams MachineParams::host() {
    const uint64_t llc = autoschedule::host_cache_size(
        _SC_LEVEL3_CACHE_SIZE, autoschedule::host_cache_size(_SC_LEVEL2_CACHE_SIZE, 16u << 20));
    // Balance 40 (Halide's default) unless dsl-calibrate measured this machine.
    MachineCosts costs = MachineCosts::host();
    float balance = 40;
    if (costs.source != "defaults")
        balance = costs.balance(Target::host().natural_vector_size(Float(32)));
    return MachineParams(autoschedule::host_threads(), llc, balance);
}

std::string MachineParams::to_string() const {
    std::ostringstream out;
    out << parallelism << "," << last_level_cache_size << "," << balance;
    return out.str();
}

AutoSchedulerResults Pipeline::auto_schedule(const Target &target, const MachineParams &params) {
    return auto_schedule("dsl", target, params);
}

AutoSchedulerResults Pipeline::auto_schedule(const std::string &autoscheduler_name,
                                             const Target &target, const MachineParams &params) {
    user_assert(defined()) << "auto_schedule: the Pipeline has no outputs; give it a Func.";
    user_assert(autoscheduler_name == "dsl" || autoscheduler_name == "Mullapudi2016" ||
                autoscheduler_name == "Adams2019" || autoscheduler_name == "Li2018" ||
                autoscheduler_name.empty())
        << "auto_schedule: there is no autoscheduler \"" << autoscheduler_name
        << "\"; dsl has one built in, named \"dsl\" (Halide's names Mullapudi2016, Adams2019 and "
           "Li2018 are accepted and mean it too).";
    MachineParams mp = params;
    if (mp.parallelism <= 0 || mp.last_level_cache_size == 0 || mp.balance <= 0) {
        MachineParams h = MachineParams::host();
        if (mp.parallelism <= 0) mp.parallelism = h.parallelism;
        if (mp.last_level_cache_size == 0) mp.last_level_cache_size = h.last_level_cache_size;
        if (mp.balance <= 0) mp.balance = h.balance;
    }
    autoschedule::reset_schedules(outputs_);
    autoschedule::Model model(outputs_, target);
    autoschedule::ScheduleWriter writer("dsl autoscheduler, target " + target.to_string() +
                                        ", machine " + mp.to_string());
    autoschedule::Plan plan = autoschedule::schedule_pipeline(model, writer, mp);
    AutoSchedulerResults r;
    r.scheduler_name = "dsl";
    r.target = target;
    r.machine_params_string = mp.to_string();
    r.schedule_source = writer.source();
    r.estimated_cost = plan.cost;
    r.baseline_cost = plan.baseline;
    return r;
}

}  // namespace dsl
