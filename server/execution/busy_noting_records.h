// A Records over a store transaction (or over another such wrapper: a script inside EXEC) that
// notes whether any call failed with kBusy (a lock wait timed out, or a deadlock was
// detected). Command handlers turn a failed call into an error reply and carry on, so without
// this the code that runs them in one transaction (EXEC, batched writes, scripts) could not
// tell a conflict — after which the whole transaction must be rolled back and run again —
// from an ordinary error reply, and would commit half of it.
#pragma once

#include "cairn/records.h"

namespace cairn::server {

// The executor that passes every call on and notes kBusy. A base of BusyNotingRecords, listed
// before Records so that it is built first.
class BusyNotingExecutor : public RecordsExecutor {
 public:
  explicit BusyNotingExecutor(RecordsExecutor& inner) : inner_(inner) {}

  // True once a call has failed with kBusy.
  bool busy() const { return busy_; }

  Status Run(RecordAccess access, Operation op) override {
    Status s = inner_.Run(access, op);
    if (s.IsBusy()) busy_ = true;
    return s;
  }

 protected:
  ~BusyNotingExecutor() = default;

 private:
  RecordsExecutor& inner_;
  bool busy_ = false;
};

class BusyNotingRecords final : private BusyNotingExecutor, public Records {
 public:
  explicit BusyNotingRecords(Records& txn)
      : BusyNotingExecutor(txn.executor()), Records(static_cast<BusyNotingExecutor&>(*this)) {}

  using BusyNotingExecutor::busy;
};

}  // namespace cairn::server
