// `small handoff` (see the header).
#include "small/ops/handoff.hpp"

#include "small/base/text.hpp"
#include "small/doc/yaml.hpp"
#include "small/model/replay_id.hpp"
#include "small/store/run_state.hpp"
#include "small/store/workspace_change.hpp"

namespace small {

namespace {

// --require-settled: the reference's refusal, listing the tasks.
Error unsettled_refusal(const std::vector<UnsettledTask>& unsettled) {
    std::string msg = "handoff refused (--require-settled): " + std::to_string(unsettled.size()) +
                      " task(s) of the current run have progress but are not completed, blocked or cancelled:";
    for (std::size_t i = 0; i < unsettled.size() && i < 5; ++i) msg += "\n  - " + describe_unsettled(unsettled[i]);
    if (unsettled.size() > 5) msg += "\n  and " + std::to_string(unsettled.size() - 5) + " more";
    const std::string& first = unsettled.front().id;
    msg += "\nFix: small checkpoint --task " + first + " --status completed --evidence \"...\"" +
           "\n  or small checkpoint --task " + first + " --status blocked --evidence \"...\"" +
           "\n  or run small handoff without --require-settled (the handoff then names them)";
    return Error::invalid(msg);
}

}  // namespace

Result<HandoffResult> handoff_command(const FileSystem& fs, const WorkspacePaths& ws, const HandoffRequest& req) {
    std::optional<std::string> manual;
    if (req.replay_id) {
        const std::string v = lower_ascii(trim(*req.replay_id));
        if (!is_valid_replay_id(v)) {
            return Error::usage("invalid --replay-id: must be 64 hex digits, got \"" + *req.replay_id + "\"");
        }
        manual = v;
    }
    Result<MutationSession> session = begin_mutation(fs, ws, MutationRequest{req.scope, true, req.lock_wait});
    if (!session) return session.error();
    Result<Document> plan_doc = load_artifact(fs, ws, ArtifactType::Plan);
    if (!plan_doc) return plan_doc.error();
    Result<Document> progress = load_artifact(fs, ws, ArtifactType::Progress);
    if (!progress) return progress.error();
    if (Status s = require_parseable(fs, ws, {ArtifactType::Intent, ArtifactType::Constraints}); !s) {
        return s.error();
    }
    const YamlValue plan = to_yaml_value(plan_doc->root());

    std::vector<UnsettledTask> unsettled = unsettled_tasks(plan, progress->root(), session->run_replay_id);
    if (req.require_settled && !unsettled.empty()) return unsettled_refusal(unsettled);

    const YamlValue previous = old_handoff(fs, ws);
    HandoffInputs in;
    in.plan = plan;
    in.unsettled = std::move(unsettled);
    in.readiness = strict_readiness(fs, ws);
    in.summary = req.summary;
    in.links = old_links(previous);
    if (previous.is_object() && previous.contains("run") && previous["run"].is_object()) in.run = previous["run"];
    if (manual) {
        in.replay_id = *manual;
        in.source = "manual";
    } else if (!session->run_replay_id.empty()) {
        in.replay_id = session->run_replay_id;
        in.source = old_replay_id(previous) == in.replay_id ? old_source(previous) : "auto";
    } else {
        Result<RunPin> pin = pin_run(fs, ws, *session, emit_document(in.plan));
        if (!pin) return pin.error();
        in.replay_id = pin->replay_id;
    }
    return write_handoff(ws, in, WorkspaceChange{}, pinned_workspace_text(*session, in.replay_id));
}

}  // namespace small
