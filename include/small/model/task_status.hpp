// A task's status (D6): the five statuses the protocol names, as the enum the
// library decides with. Their words are spelled in task_status.cpp only.
// Plans may hold words of their own (the schema allows any), so a status read
// from a file keeps its word (WrittenStatus) and is shown and counted under it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace small {

enum class TaskStatus : std::uint8_t { Pending, InProgress, Completed, Blocked, Cancelled };

// Every status, in the order messages list them.
inline constexpr TaskStatus kTaskStatuses[] = {TaskStatus::Pending, TaskStatus::InProgress, TaskStatus::Completed,
                                               TaskStatus::Blocked, TaskStatus::Cancelled};

// The word plans, logs and flags use (in_progress for InProgress).
std::string_view status_name(TaskStatus status);

// The status `word` names, exactly: each reader trims or lower-cases first
// as its own rules say. nullopt for any other word.
std::optional<TaskStatus> parse_task_status(std::string_view word);

// The words of `statuses`, in order (completions, schema enums, suggestions).
std::vector<std::string> status_names(std::span<const TaskStatus> statuses);

// Done with: completed or cancelled. A task that is not done can be ready
// (D18); a run whose tasks are all done is complete.
bool is_done(TaskStatus status);

// Settled (D13): completed, blocked or cancelled. A task a session started
// and left in any other status is unsettled in the handoff.
bool is_settled(TaskStatus status);

// A status as a plan or progress log holds it, after its reader's
// normalisation: the word, and the status it names when it is one of the five.
// An empty word: nothing written (no work entry, no such task).
class WrittenStatus {
public:
    WrittenStatus() = default;
    WrittenStatus(TaskStatus status);  // NOLINT(google-explicit-constructor): each status is written as its name
    explicit WrittenStatus(std::string word);

    const std::string& word() const { return word_; }
    std::optional<TaskStatus> known() const { return known_; }
    bool is(TaskStatus status) const { return known_ == status; }
    bool empty() const { return word_.empty(); }
    bool operator==(const WrittenStatus& other) const { return word_ == other.word_; }

private:
    std::string word_;
    std::optional<TaskStatus> known_;
};

// The rules above for a written status; an unknown word is neither.
bool is_done(const WrittenStatus& status);
bool is_settled(const WrittenStatus& status);

}  // namespace small
