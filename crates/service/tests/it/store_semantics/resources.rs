//! URL groups, search indexes and usage counters.

use super::*;

pub(crate) fn search_index() -> SearchIndex {
    SearchIndex {
        creation_time: 1_700_000_000,
        customer_id: "team@example.com".into(),
        endpoint: "https://index.example.com".into(),
        hosting_email: String::new(),
        id: uuid::Uuid::new_v4(),
        input_enrichment_enabled: true,
        max_daily_queries: -1,
        max_daily_updates: 1000,
        max_monthly_bandwidth: -1,
        max_monthly_reranks: 0,
        max_query_per_second: 100,
        max_reads_per_request: 1000,
        max_vector_count: 10_000,
        max_writes_per_request: 1000,
        max_writes_per_second: 100,
        name: "products".into(),
        read_only_token: "ro-token".into(),
        region: IndexRegion::EuWest1,
        throughput_vector: Vec::new(),
        token: "index-token".into(),
        type_: IndexType::Payg,
    }
}

fn url_groups_keep_created_at_and_indexes_read_back(backend: Backend) {
    let Some(f) = fixture(backend) else {
        return;
    };
    assert_eq!(f.store.url_group("orders").expect("group"), None);
    let one = [UrlGroupEndpoint {
        name: String::new(),
        url: "https://example.com/a".into(),
    }];
    let created = f.store.put_url_group("orders", &one, 1_000).expect("put");
    assert_eq!((created.created_at, created.updated_at), (1_000, 1_000));
    let two = [
        one[0].clone(),
        UrlGroupEndpoint {
            name: "b".into(),
            url: "https://example.com/b".into(),
        },
    ];
    let updated = f.store.put_url_group("orders", &two, 5_000).expect("put");
    assert_eq!((updated.created_at, updated.updated_at), (1_000, 5_000));
    assert_eq!(updated.endpoints, two);
    assert_eq!(f.store.url_group("orders").expect("group"), Some(updated));

    let index = search_index();
    assert_eq!(f.store.index(&index.id.to_string()).expect("index"), None);
    f.store.put_index(&index).expect("put");
    assert_eq!(
        f.store.index(&index.id.to_string()).expect("index"),
        Some(index.clone())
    );
    assert_eq!(
        f.store
            .index(&index.id.to_string().to_ascii_uppercase())
            .expect("index"),
        Some(index.clone()),
        "UUID hex case does not matter"
    );
    let mut renamed = index.clone();
    renamed.name = "renamed".into();
    f.store.put_index(&renamed).expect("replace");
    assert_eq!(
        f.store.index(&index.id.to_string()).expect("index"),
        Some(renamed)
    );
}

fn usage_counters_add_up_per_metric_and_minute(backend: Backend) {
    let Some(f) = fixture(backend) else {
        return;
    };
    let m = |metric: &str, minute: i64, value: f64| (metric.to_owned(), minute, value);
    f.store
        .add_usage_batch(&[
            m("delivered", 60_000, 1.0),
            m("delivered", 60_000, 2.5),
            m("delivered", 120_000, 1.0),
            m("failed", 60_000, 7.0),
        ])
        .expect("usage");
    f.store
        .add_usage_batch(&[m("delivered", 60_000, 0.5), m("delivered", 240_000, 4.0)])
        .expect("usage");
    assert_eq!(
        f.store
            .usage_between("delivered", 0, i64::MAX)
            .expect("usage"),
        [(60_000, 4.0), (120_000, 1.0), (240_000, 4.0)]
    );
    // Both bounds inclusive.
    assert_eq!(
        f.store
            .usage_between("delivered", 120_000, 240_000)
            .expect("usage"),
        [(120_000, 1.0), (240_000, 4.0)]
    );
    assert_eq!(
        f.store.usage_between("failed", 0, i64::MAX).expect("usage"),
        [(60_000, 7.0)]
    );
    assert!(
        f.store
            .usage_between("unknown", 0, i64::MAX)
            .expect("usage")
            .is_empty()
    );
}

on_both_stores!(
    url_groups_keep_created_at_and_indexes_read_back,
    usage_counters_add_up_per_metric_and_minute,
);
