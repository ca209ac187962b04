// `small checkpoint` (see the header).
#include "small/ops/session/checkpoint.hpp"

#include "small/base/text.hpp"
#include "small/domain/plan_status_edit.hpp"
#include "small/domain/progress_entry.hpp"
#include "small/store/workspace_change.hpp"

namespace small {

namespace {

constexpr StatusFlagRule kCheckpointFlags{kCheckpointStatuses, "--task must not be blank",
                                          "completed, blocked, cancelled or in_progress"};

}  // namespace

Result<TaskStatus> parse_checkpoint_status(std::string_view task, std::string_view text) {
    return parse_status_flag(task, text, kCheckpointFlags);
}

Result<CheckpointResult> checkpoint_command(const FileSystem& fs, const WorkspacePaths& ws,
                                            const CheckpointRequest& req) {
    // The flags as the edge checks them: a caller may pass a status checkpoint does not set.
    if (Result<TaskStatus> s = parse_checkpoint_status(req.task, status_name(req.status)); !s) return s.error();
    if (Result<EntryTime> when = parse_entry_time(req.at, req.after); !when) return when.error();
    Result<MutationSession> session = begin_mutation(fs, ws, MutationRequest{req.scope, false, req.lock_wait});
    if (!session) return session.error();
    const StatusChange change = status_change_of(req, kDefaultCheckpointEvidence);
    return write_status_change(fs, ws, *session, change);
}


}  // namespace small
