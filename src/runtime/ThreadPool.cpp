// The thread pool behind parallel loops. The calling thread works on its own loop too, so a
// parallel loop nested inside another one always makes progress. Idle workers sleep on a
// condition variable: nothing spins between pipelines.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "dsl/runtime/dsl_runtime.h"
#include "runtime/Runtime.h"

namespace {

struct Job {
    dsl_task_fn fn;
    void *closure;
    int32_t end;
    std::atomic<int32_t> next;
    std::atomic<int32_t> finished{0};
    int32_t total;
    std::atomic<int> error{0};
    int active_workers = 0;  // guarded by the pool's mutex
};

class ThreadPool {
  public:
    ~ThreadPool() { stop_workers(); }

    int run(dsl_task_fn fn, void *closure, int32_t min, int32_t extent) {
        if (extent <= 0) return 0;
        Job job;
        job.fn = fn;
        job.closure = closure;
        job.next = min;
        job.end = min + extent;
        job.total = extent;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            start_workers(lock);
            jobs_.push_back(&job);
        }
        work_ready_.notify_all();
        work_on(job);
        std::unique_lock<std::mutex> lock(mutex_);
        job_done_.wait(lock,
                       [&] { return job.finished.load() == job.total && job.active_workers == 0; });
        jobs_.erase(std::find(jobs_.begin(), jobs_.end(), &job));
        return job.error.load();
    }

    void set_threads(int n) {
        std::unique_lock<std::mutex> lock(mutex_);
        requested_ = n;
        if (!workers_.empty() && static_cast<int>(workers_.size()) + 1 != threads_wanted()) {
            lock.unlock();
            stop_workers();
        }
    }

  private:
    int threads_wanted() const {
        if (requested_ > 0) return requested_;
        if (const char *env = std::getenv("DSL_NUM_THREADS")) {
            int n = std::atoi(env);
            if (n > 0) return n;
        }
        return std::max(1u, std::thread::hardware_concurrency());
    }

    void start_workers(std::unique_lock<std::mutex> &) {
        if (!workers_.empty() || stopping_) return;
        int n = threads_wanted() - 1;  // the caller is a worker too
        for (int i = 0; i < n; i++)
            workers_.emplace_back([this] { worker_loop(); });
    }

    void stop_workers() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
        }
        work_ready_.notify_all();
        for (std::thread &t : workers_)
            t.join();
        std::lock_guard<std::mutex> lock(mutex_);
        workers_.clear();
        stopping_ = false;
    }

    /// Runs iterations of `job` until none is left.
    void work_on(Job &job) {
        for (;;) {
            int32_t i = job.next.fetch_add(1);
            if (i >= job.end) return;
            int result = job.fn(job.closure, i);
            if (result != 0) {
                int expected = 0;
                job.error.compare_exchange_strong(expected, result);
            }
            if (job.finished.fetch_add(1) + 1 == job.total) {
                std::lock_guard<std::mutex> lock(mutex_);
                job_done_.notify_all();
            }
        }
    }

    Job *find_work() {
        for (Job *j : jobs_) {
            if (j->next.load() < j->end) return j;
        }
        return nullptr;
    }

    void worker_loop() {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            work_ready_.wait(lock, [&] { return stopping_ || find_work() != nullptr; });
            if (stopping_) return;
            Job *job = find_work();
            job->active_workers++;
            lock.unlock();
            work_on(*job);
            lock.lock();
            job->active_workers--;
            job_done_.notify_all();
        }
    }

    std::mutex mutex_;
    std::condition_variable work_ready_, job_done_;
    std::vector<Job *> jobs_;
    std::vector<std::thread> workers_;
    int requested_ = 0;
    bool stopping_ = false;
};

ThreadPool &pool() {
    static ThreadPool p;
    return p;
}

}  // namespace

extern "C" {

int dsl_runtime_parallel_for(dsl_task_fn fn, void *closure, int32_t min, int32_t extent) {
    return pool().run(fn, closure, min, extent);
}

void dsl_set_num_threads(int n) {
    pool().set_threads(n);
}

}  // extern "C"
