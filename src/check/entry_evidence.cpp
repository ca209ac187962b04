#include "small/check/entry_evidence.hpp"

#include "small/base/text.hpp"

namespace small {

bool entry_has_evidence(NodeRef entry) {
    for (const char* field : {"evidence", "verification", "command", "test", "link", "commit"}) {
        const NodeRef value = entry.find(field);
        if (!value.valid() || value.is_null()) continue;
        if (!value.is_string() || !trim(value.as_string()).empty()) return true;
    }
    return false;
}

}  // namespace small
