// Task statuses and their words (see the header).
#include "small/model/task_status.hpp"

#include <utility>

namespace small {

std::string_view status_name(TaskStatus status) {
    switch (status) {
        case TaskStatus::Pending: return "pending";
        case TaskStatus::InProgress: return "in_progress";
        case TaskStatus::Completed: return "completed";
        case TaskStatus::Blocked: return "blocked";
        case TaskStatus::Cancelled: return "cancelled";
    }
    return {};  // not a TaskStatus: a number cast out of range
}

std::optional<TaskStatus> parse_task_status(std::string_view word) {
    for (const TaskStatus status : kTaskStatuses) {
        if (status_name(status) == word) return status;
    }
    return std::nullopt;
}

std::vector<std::string> status_names(std::span<const TaskStatus> statuses) {
    std::vector<std::string> out;
    out.reserve(statuses.size());
    for (const TaskStatus status : statuses) out.emplace_back(status_name(status));
    return out;
}

bool is_done(TaskStatus status) { return status == TaskStatus::Completed || status == TaskStatus::Cancelled; }

bool is_settled(TaskStatus status) { return is_done(status) || status == TaskStatus::Blocked; }

WrittenStatus::WrittenStatus(TaskStatus status) : word_(status_name(status)), known_(status) {}

WrittenStatus::WrittenStatus(std::string word) : word_(std::move(word)), known_(parse_task_status(word_)) {}

bool is_done(const WrittenStatus& status) { return status.known() && is_done(*status.known()); }

bool is_settled(const WrittenStatus& status) { return status.known() && is_settled(*status.known()); }

}  // namespace small
