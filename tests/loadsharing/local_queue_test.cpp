#include "tests/loadsharing/test_time.h"
#include "models/loadsharing/local_queue.h"

#include <gtest/gtest.h>

namespace fdsim::loadsharing {
namespace {


Task task(uint64_t id, double exec_s, double deadline_s) {
  Task t;
  t.id = id;
  t.origin = 0;
  t.exec = Duration::from_seconds(exec_s);
  t.deadline = at_s(deadline_s);
  return t;
}

std::vector<uint64_t> ids(const std::vector<Task>& ts) {
  std::vector<uint64_t> out;
  for (const Task& t : ts) out.push_back(t.id);
  return out;
}

TEST(GuaranteeTest, Fcfs_NewTaskMustFinishByItsDeadlineBehindEveryone) {
  LocalQueue q(SchedulingPolicy::fcfs, ExecKnowledge::exact);
  const Duration unused = Duration::s(1);
  EXPECT_TRUE(q.guarantees(task(1, 2, 3), at_s(0), unused));  // done at 2 <= 3
  q.insert(task(1, 2, 3));
  q.start_next(at_s(0));
  EXPECT_FALSE(q.guarantees(task(2, 2, 3), at_s(0), unused));       // done at 4 > 3
  EXPECT_TRUE(q.guarantees(task(3, 2, 4), at_s(0), unused));        // done at 4 == deadline: met
  EXPECT_TRUE(q.guarantees(task(4, 1.5, 3.6), at_s(0.5), unused));  // 0.5 + 1.5 rem + 1.5
}

TEST(GuaranteeTest, Mlfs_InsertionThatMakesAFeasibleTaskMissIsRejected) {
  LocalQueue q(SchedulingPolicy::mlfs, ExecKnowledge::exact);
  const Duration unused = Duration::s(1);
  q.insert(task(1, 5, 100));
  q.start_next(at_s(0));     // in service until t = 5
  q.insert(task(2, 1, 10));  // laxity key 9
  q.insert(task(3, 2, 20));  // laxity key 18
  // At t = 1: remaining 4. A task with key 6 goes first: 8 <= 9, then W1 9 <= 10, W2 11 <= 20.
  EXPECT_TRUE(q.guarantees(task(4, 3, 9), at_s(1), unused));
  // Key 7 goes first too: it finishes at 10 <= 12, but pushes task 2 from 6 to 11 > 10.
  EXPECT_FALSE(q.guarantees(task(5, 5, 12), at_s(1), unused));
  // Key 13 goes between 2 and 3: 2 done at 6, new at 9 <= 16, 3 pushed from 8 to 11 <= 20.
  EXPECT_TRUE(q.guarantees(task(6, 3, 16), at_s(1), unused));
  // Key 15 between them: new done at 6 + 9 = 15 <= 24; 3 pushed from 8 to 17 <= 20.
  EXPECT_TRUE(q.guarantees(task(7, 9, 24), at_s(1), unused));
  // Key 16: new done at 6 + 12 = 18 <= 28, task 3 pushed from 8 to 20: still met (boundary).
  EXPECT_TRUE(q.guarantees(task(8, 12, 28), at_s(1), unused));
  // Key 16, one more ns of work pushes task 3 past 20.
  Task t = task(9, 12, 28);
  t.exec += Duration::ns(1);
  t.deadline += Duration::ns(1);
  EXPECT_FALSE(q.guarantees(t, at_s(1), unused));
}

TEST(GuaranteeTest, ATaskAlreadyDoomedDoesNotBlockNewOnes) {
  LocalQueue q(SchedulingPolicy::mlfs, ExecKnowledge::exact);
  const Duration unused = Duration::s(1);
  q.insert(task(1, 5, 100));
  q.start_next(at_s(0));      // in service until t = 5
  q.insert(task(2, 3, 9));    // key 6: done at 8
  q.insert(task(3, 1, 8.5));  // key 7.5: done at 9 > 8.5, doomed before anything arrives
  // Key 5.9 goes first: done at 5.5 <= 6.4; task 2 pushed to 8.5 <= 9; task 3 pushed from 9
  // to 9.5, but it missed anyway: guaranteed.
  EXPECT_TRUE(q.guarantees(task(4, 0.5, 6.4), at_s(0), unused));
  // Behind everyone: done at 10 <= 100.
  EXPECT_TRUE(q.guarantees(task(5, 1, 100), at_s(0), unused));
  // A new task that itself misses is never guaranteed.
  EXPECT_FALSE(q.guarantees(task(6, 1, 5.5), at_s(0), unused));
}

TEST(GuaranteeTest, MeanKnowledgePlansEveryTaskWithTheMean) {
  LocalQueue q(SchedulingPolicy::mlfs, ExecKnowledge::mean);
  const Duration mean = Duration::s(1);
  q.insert(task(1, 50, 100));                                    // really 50 s, planned 1 s
  q.start_next(at_s(0));                                         // planned end at 1
  EXPECT_TRUE(q.guarantees(task(2, 30, 2), at_s(0), mean));      // planned done at 2
  EXPECT_FALSE(q.guarantees(task(3, 0.1, 1.5), at_s(0), mean));  // planned done at 2 > 1.5
  // Past the planned end of the task in service, the planned remaining time is zero.
  EXPECT_EQ(q.planned_remaining(at_s(3), mean), Duration::zero());
  EXPECT_TRUE(q.guarantees(task(4, 30, 4), at_s(3), mean));
}

TEST(LocalQueueOrder, MlfsServesMinimumLaxityFirstWithFifoTies) {
  LocalQueue q(SchedulingPolicy::mlfs, ExecKnowledge::exact);
  q.insert(task(1, 1, 10));  // key 9
  q.insert(task(2, 4, 10));  // key 6
  q.insert(task(3, 2, 11));  // key 9 (tie with 1: after it)
  q.insert(task(4, 1, 3));   // key 2
  EXPECT_EQ(ids(q.waiting_tasks()), (std::vector<uint64_t>{4, 2, 1, 3}));
  EXPECT_EQ(q.start_next(at_s(0)).id, 4u);
  EXPECT_EQ(q.length(), 4u);  // in service counts
  EXPECT_EQ(q.finish_service().id, 4u);
  EXPECT_EQ(q.length(), 3u);
}

TEST(LocalQueueOrder, BackgroundTasksWaitBehindEveryGuaranteedTask) {
  LocalQueue q(SchedulingPolicy::mlfs, ExecKnowledge::exact);
  q.insert(task(1, 1, 1.5), true);  // background, its key would be 0.5
  q.insert(task(2, 1, 50));         // key 49
  q.insert(task(3, 2, 2.5), true);  // background
  q.insert(task(4, 1, 60));         // key 59: still ahead of the background tasks
  EXPECT_EQ(ids(q.waiting_tasks()), (std::vector<uint64_t>{2, 4, 1, 3}));
}

TEST(GuaranteeTest, ABackgroundTaskNeverBlocksAGuarantee) {
  LocalQueue q(SchedulingPolicy::mlfs, ExecKnowledge::exact);
  const Duration unused = Duration::s(1);
  q.insert(task(1, 1, 10), true);  // background: would finish at 1 <= 10
  // Task 2 (key 8.5) goes ahead of it and pushes it to 10.5 > 10: guaranteed all the same.
  EXPECT_TRUE(q.guarantees(task(2, 9.5, 18), at_s(0), unused));
  // The same queue with task 1 guaranteed (key 9): task 2 still goes first, and is refused.
  LocalQueue g(SchedulingPolicy::mlfs, ExecKnowledge::exact);
  g.insert(task(1, 1, 10));
  EXPECT_FALSE(g.guarantees(task(2, 9.5, 18), at_s(0), unused));
}

TEST(LocalQueueOrder, MeanKnowledgeMakesMlfsEarliestDeadlineFirst) {
  LocalQueue q(SchedulingPolicy::mlfs, ExecKnowledge::mean);
  q.insert(task(1, 1, 10));
  q.insert(task(2, 9, 10.5));
  q.insert(task(3, 0.1, 9));
  EXPECT_EQ(ids(q.waiting_tasks()), (std::vector<uint64_t>{3, 1, 2}));
}

TEST(LocalQueueOrder, FcfsKeepsArrivalOrder) {
  LocalQueue q(SchedulingPolicy::fcfs, ExecKnowledge::exact);
  q.insert(task(1, 1, 10));
  q.insert(task(2, 4, 1));
  q.insert(task(3, 2, 5));
  EXPECT_EQ(ids(q.waiting_tasks()), (std::vector<uint64_t>{1, 2, 3}));
}

TEST(LocalQueueLoad, RemainingWorkCountsTheRestOfTheTaskInService) {
  LocalQueue q(SchedulingPolicy::fcfs, ExecKnowledge::exact);
  q.insert(task(1, 3, 10));
  q.insert(task(2, 2, 10));
  q.start_next(at_s(1));
  EXPECT_DOUBLE_EQ(q.remaining_work_s(at_s(2), Duration::s(1)), 2.0 + 2.0);
  const std::vector<Task> all = q.drain();
  EXPECT_EQ(ids(all), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(q.length(), 0u);
  EXPECT_FALSE(q.busy());
}

}  // namespace
}  // namespace fdsim::loadsharing
