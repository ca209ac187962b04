// Whether a progress entry carries evidence (D9): the one definition shared
// by the invariants (INV-S1 and the evidence rules) and the verified prefix,
// which carries the fact past the bytes it no longer parses.
#pragma once

#include "small/doc/document.hpp"

namespace small {

// True if one of evidence, verification, command, test, link, commit is
// present, not null and not blank.
bool entry_has_evidence(NodeRef entry);

}  // namespace small
