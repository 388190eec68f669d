#include "models/loadsharing/local_queue.h"
#include "sim/engine/internal_error.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace fdsim::loadsharing {

namespace {
[[noreturn]] void queue_misuse(const char* what) {
  fdsim::internal_error("fdsim: internal error: LocalQueue: %s\n", what);
}
}  // namespace

int64_t LocalQueue::key_of(const Task& t) const {
  if (policy_ == SchedulingPolicy::fcfs) return int64_t(next_seq_);
  if (knowledge_ == ExecKnowledge::mean) return t.deadline.count_ns();
  return (t.deadline - t.exec).count_ns();
}

size_t LocalQueue::insert_position(int64_t key) const {
  // After every entry with key <= `key`: ties keep insertion order.
  auto it = std::upper_bound(waiting_.begin(), waiting_.end(), key,
                             [](int64_t k, const Entry& e) { return k < e.key; });
  return size_t(it - waiting_.begin());
}

Duration LocalQueue::planned_remaining(SimTime now, Duration mean_exec) const {
  if (!busy_) return Duration::zero();
  const SimTime end = service_start_ + planned(serving_, mean_exec);
  return end > now ? end - now : Duration::zero();
}

bool LocalQueue::guarantees(const Task& t, SimTime now, Duration mean_exec) const {
  charge_scan(waiting_.size());
  const size_t pos = insert_position(key_of(t));
  const Duration extra = planned(t, mean_exec);
  // `done` walks the completion times of the new order (with t at `pos`); the completion time of
  // a task behind t in the old order is `done - extra`.
  SimTime done = now + planned_remaining(now, mean_exec);
  for (size_t k = 0; k <= waiting_.size(); ++k) {
    if (k == pos) {
      done += extra;
      if (done > t.deadline) return false;
    }
    if (k == waiting_.size()) break;
    const Task& w = waiting_[k].task;
    done += planned(w, mean_exec);
    if (k >= pos && !waiting_[k].background && done > w.deadline && done - extra <= w.deadline)
      return false;
  }
  return true;
}

void LocalQueue::insert(const Task& t, bool background) {
  charge_scan(waiting_.size());  // the vector moves every entry behind the insertion point
  const int64_t key = background ? std::numeric_limits<int64_t>::max() : key_of(t);
  waiting_.insert(waiting_.begin() + std::ptrdiff_t(insert_position(key)),
                  Entry{key, next_seq_++, t, background});
}

const Task& LocalQueue::next() const {
  if (!idle_with_work()) queue_misuse("next() while busy or empty");
  return waiting_.front().task;
}

Task LocalQueue::discard_next() {
  if (!idle_with_work()) queue_misuse("discard_next() while busy or empty");
  Task t = waiting_.front().task;
  charge_scan(waiting_.size());
  waiting_.erase(waiting_.begin());
  return t;
}

const Task& LocalQueue::start_next(SimTime now) {
  if (!idle_with_work()) queue_misuse("start_next() while busy or empty");
  serving_ = waiting_.front().task;
  charge_scan(waiting_.size());
  waiting_.erase(waiting_.begin());
  busy_ = true;
  service_start_ = now;
  return serving_;
}

Task LocalQueue::finish_service() {
  if (!busy_) queue_misuse("finish_service() while idle");
  busy_ = false;
  return serving_;
}

double LocalQueue::remaining_work_s(SimTime now, Duration mean_exec) const {
  Duration total = planned_remaining(now, mean_exec);
  charge_scan(waiting_.size());
  for (const Entry& e : waiting_) total += planned(e.task, mean_exec);
  return total.seconds();
}

std::vector<Task> LocalQueue::drain() {
  std::vector<Task> out;
  out.reserve(length());
  if (busy_) out.push_back(serving_);
  charge_scan(waiting_.size());
  for (Entry& e : waiting_) out.push_back(e.task);
  waiting_.clear();
  busy_ = false;
  return out;
}

std::vector<Task> LocalQueue::waiting_tasks() const {
  std::vector<Task> out;
  out.reserve(waiting_.size());
  charge_scan(waiting_.size());
  for (const Entry& e : waiting_) out.push_back(e.task);
  return out;
}

}  // namespace fdsim::loadsharing
