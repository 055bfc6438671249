// What queue_crash_consumer logs, shared by the consumer and queue_crash_test.cc.
//
// The consumer appends one line per event to its log file with a single write(2) on an O_APPEND
// descriptor, so a line is in the file (the page cache survives SIGKILL) before the next store
// call starts:
//
//   claimed <job id> <attempt> <thread> <lease deadline ms>   after Claim returned the job
//   acked <job id> <thread>                                   after Ack returned kDone
//   notowner <job id> <thread>                                after Ack returned kNotOwner
//
// So at the kill each thread has at most one job between "claimed" and "acked": one it was
// working on (still in flight in the store) or one whose Ack committed just before the kill.
// A thread may also hold a job whose Claim committed but whose "claimed" line was not written.
#pragma once

#include <string_view>

namespace cairn::queue_crash {

inline constexpr std::string_view kQueue = "crash";
inline constexpr std::string_view kGroup = "workers";
// Consumer names are kConsumerPrefix + the thread number.
inline constexpr std::string_view kConsumerPrefix = "child-";

}  // namespace cairn::queue_crash
