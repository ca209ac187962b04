// `small handoff` (see the header).
#include "small/ops/session/handoff.hpp"

#include "small/base/text.hpp"
#include "small/check/placeholder.hpp"
#include "small/model/replay_id.hpp"
#include "small/store/workspace_change.hpp"

namespace small {

Result<HandoffResult> handoff_command(const FileSystem& fs, const WorkspacePaths& ws, const HandoffRequest& req) {
    std::optional<std::string> manual;
    if (req.replay_id) {
        const std::string v = lower_ascii(trim(*req.replay_id));
        if (!is_valid_replay_id(v)) {
            return Error::usage("invalid --replay-id: must be 64 hex digits, got \"" + *req.replay_id + "\"");
        }
        manual = v;
    }
    if (req.summary) {
        if (Status s = refuse_placeholder("summary", *req.summary); !s) return s.error();
    }
    for (const std::string& step : req.next) {
        if (Status s = refuse_placeholder("next", step); !s) return s.error();
    }
    Result<MutationSession> session = begin_mutation(fs, ws, MutationRequest{req.scope, true, req.lock_wait});
    if (!session) return session.error();
    return regenerate_handoff(fs, ws, *session, HandoffOptions{req.summary, manual, req.require_settled, req.next});
}

}  // namespace small
