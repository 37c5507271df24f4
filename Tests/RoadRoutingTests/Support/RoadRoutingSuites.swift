import Testing

/// Every road suite runs one test at a time. Their tests import and contract maps synchronously, and several at
/// once held both cooperative threads of a 2-core machine for many seconds, so timing tests in other suites of the run
/// waited on them; one at a time leaves a thread to the rest.
@Suite(.serialized) enum RoadRoutingSuites {}
