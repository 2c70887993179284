//! The defects the fake can be given, one at a time.

/// One way the fake can be made wrong, as an implementer would get it wrong. Each names the
/// scenario of `courier-verify` that catches it (the fake's test holds it to that).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Defect {
    /// The list ignores `label`.
    IgnoreLabelFilter,
    /// `label=a&label=b` matches only `a`.
    LabelFirstValueOnly,
    /// `label=a,b` is taken as the one label `a,b`.
    LabelCommaNotSplit,
    /// The label filter reads `labels` but not the deprecated `label`.
    LabelIgnoresDeprecatedField,
    /// The list ignores `workflowUrl`.
    IgnoreWorkflowUrlFilter,
    /// The list ignores `workflowRunId`.
    IgnoreWorkflowRunIdFilter,
    /// The list ignores `workflowCreatedAt`.
    IgnoreWorkflowCreatedAtFilter,
    /// The list ignores `failureFunctionState`.
    IgnoreStateFilter,
    /// The list ignores `callerIp`.
    IgnoreCallerIpFilter,
    /// The list ignores `flowControlKey`.
    IgnoreFlowControlKeyFilter,
    /// `fromDate` is exclusive.
    FromDateExclusive,
    /// The list ignores `toDate`.
    IgnoreToDate,
    /// Different filters are ORed instead of ANDed.
    FiltersOred,
    /// The compatible spelling `callerIP` is ignored.
    IgnoreCallerIpAlias,
    /// Entries come in descending `dlqId` order.
    DescendingOrder,
    /// Ids are ordered by length first, as numbers would be.
    NumericOrder,
    /// A cursor points one entry back, so the next page repeats the last entry of this one.
    CursorRepeatsLast,
    /// A full last page still carries a cursor, which leads to an empty page.
    CursorOnFullLastPage,
    /// `count` is ignored: pages are always up to 100.
    IgnoreCount,
    /// A page holds one entry fewer than `count` while more exist.
    ShortPages,
    /// The list is always empty.
    AlwaysEmptyList,
    /// An entry stored after the first list is not listed.
    ListFrozenAtFirstCall,
    /// A deleted entry is 404 but the list keeps showing it.
    DeletedStillListed,
    /// Deleting an unknown id answers 200.
    DeleteUnknownOk,
    /// A bulk delete by ids also applies the filters given beside them.
    BulkDeleteIdsAppliesFilters,
    /// A bulk delete by ids counts the ids named, not those deleted.
    BulkDeleteCountsNamed,
    /// A bulk delete by filter deletes one batch and returns no cursor.
    BulkDeleteFilterOneBatch,
    /// Cancel answers 200 but leaves the run's entries.
    CancelKeepsEntries,
    /// Cancelling an unknown run answers 200.
    CancelUnknownOk,
    /// Any bearer token is accepted.
    AnyServiceToken,
    /// Any Basic credentials are accepted.
    AnyManagementCredentials,
    /// The token in the `service_token` query parameter is refused.
    RefuseQueryToken,
    /// A bad parameter is 400 before the credentials are checked.
    ParametersBeforeCredentials,
    /// An unknown URL group is 200 with an empty group.
    UnknownUrlGroupOk,
    /// `dlq_message_count` is always 0.
    DlqCountZero,
    /// The daily arrays miss the last day of the month.
    MonthOneDayShort,
    /// Every period series has one point too few.
    SeriesOneShort,
    /// A stored index answers another region.
    IndexWrongRegion,
    /// A stored URL group answers without its endpoints.
    UrlGroupWithoutEndpoints,
    /// Get-one answers another `workflowUrl` than the one stored.
    GetChangesWorkflowUrl,
    /// The compatible list path answers an empty page.
    CompatListEmpty,
    /// Rotation answers new credentials but the old token keeps working.
    RotationKeepsOldToken,
    /// Every error body says `message` instead of `error`.
    ErrorBodyMessage,
    /// Listed entries call `workflowRunId` `runId`.
    RenameWorkflowRunId,
    /// Entries older than the retention are still served.
    RetentionIgnored,
    /// Storing into a full DLQ keeps its oldest entry.
    OldestNotEvicted,
}

impl Defect {
    /// Every defect, for the test that holds the verifier to catching each.
    pub const ALL: [Defect; 46] = [
        Defect::IgnoreLabelFilter,
        Defect::LabelFirstValueOnly,
        Defect::LabelCommaNotSplit,
        Defect::LabelIgnoresDeprecatedField,
        Defect::IgnoreWorkflowUrlFilter,
        Defect::IgnoreWorkflowRunIdFilter,
        Defect::IgnoreWorkflowCreatedAtFilter,
        Defect::IgnoreStateFilter,
        Defect::IgnoreCallerIpFilter,
        Defect::IgnoreFlowControlKeyFilter,
        Defect::FromDateExclusive,
        Defect::IgnoreToDate,
        Defect::FiltersOred,
        Defect::IgnoreCallerIpAlias,
        Defect::DescendingOrder,
        Defect::NumericOrder,
        Defect::CursorRepeatsLast,
        Defect::CursorOnFullLastPage,
        Defect::IgnoreCount,
        Defect::ShortPages,
        Defect::AlwaysEmptyList,
        Defect::ListFrozenAtFirstCall,
        Defect::DeletedStillListed,
        Defect::DeleteUnknownOk,
        Defect::BulkDeleteIdsAppliesFilters,
        Defect::BulkDeleteCountsNamed,
        Defect::BulkDeleteFilterOneBatch,
        Defect::CancelKeepsEntries,
        Defect::CancelUnknownOk,
        Defect::AnyServiceToken,
        Defect::AnyManagementCredentials,
        Defect::RefuseQueryToken,
        Defect::ParametersBeforeCredentials,
        Defect::UnknownUrlGroupOk,
        Defect::DlqCountZero,
        Defect::MonthOneDayShort,
        Defect::SeriesOneShort,
        Defect::IndexWrongRegion,
        Defect::UrlGroupWithoutEndpoints,
        Defect::GetChangesWorkflowUrl,
        Defect::CompatListEmpty,
        Defect::RotationKeepsOldToken,
        Defect::ErrorBodyMessage,
        Defect::RenameWorkflowRunId,
        Defect::RetentionIgnored,
        Defect::OldestNotEvicted,
    ];
}
