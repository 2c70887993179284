//! Who gets into the console: the login page without credentials, the session cookie and its
//! end, and the refusal of cross-site requests and missing CSRF tokens.

use super::{
    api_get_status, client, csrf, location, page, row_ids, send, sign_in, signed_in, start,
};
use courier_service::demo::DEMO_CUSTOMER_ID;
use courier_service::demo::DEMO_MANAGEMENT_KEY;
use reqwest::StatusCode;
use reqwest::header::SET_COOKIE;

#[tokio::test]
async fn without_credentials_there_is_only_the_login_page() {
    let (courier, _data) = start(&[]);
    let base = &courier.management;
    let http = client();

    let response = send(http.get(format!("{base}/console/dlq?label=billing"))).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        location(response.headers()),
        "/console/login?next=%2Fconsole%2Fdlq%3Flabel%3Dbilling"
    );
    for path in ["/console/stats", "/console/topics", "/console/dlq/x"] {
        let response = http.get(format!("{base}{path}")).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::SEE_OTHER, "{path}");
        let body = response.text().await.unwrap();
        assert!(!body.contains("data-dlq-id"), "{path} leaked data");
    }
    let response = send(http.post(format!("{base}/console/bulk-delete"))).await;
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    assert!(
        response.headers().get("www-authenticate").is_none(),
        "no Basic dialog for a browser without credentials"
    );

    let wrong = send(
        http.get(format!("{base}/console/dlq"))
            .basic_auth(DEMO_CUSTOMER_ID, Some("not-the-key")),
    )
    .await;
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    assert!(
        wrong.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Basic")
    );

    let login = send(http.get(format!("{base}/console/login"))).await;
    assert_eq!(login.status(), StatusCode::OK);
    let login = login.text().await.unwrap();
    assert!(login.contains("name=\"username\"") && login.contains("type=\"password\""));
    assert!(
        login.contains("<label for=\"username\">") && login.contains("<label for=\"password\">")
    );

    let refused = send(
        http.post(format!("{base}/console/login"))
            .form(&[("username", DEMO_CUSTOMER_ID), ("password", "wrong")]),
    )
    .await;
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    assert!(refused.headers().get(SET_COOKIE).is_none());

    let css = send(http.get(format!("{base}/console/assets/console.css"))).await;
    assert_eq!(css.status(), StatusCode::OK);
    assert!(
        css.text()
            .await
            .unwrap()
            .contains("prefers-color-scheme: dark")
    );
}

#[tokio::test]
async fn login_sets_a_strict_http_only_session_that_logout_ends() {
    let (courier, _data) = start(&[]);
    let base = &courier.management;
    let (cookie, set_cookie) = sign_in(base).await;
    let flags: Vec<String> = set_cookie
        .split(';')
        .map(|part| part.trim().to_ascii_lowercase())
        .collect();
    for flag in ["httponly", "samesite=strict", "path=/console"] {
        assert!(
            flags.iter().any(|f| f == flag),
            "{flag} missing from {set_cookie}"
        );
    }
    assert!(
        flags.iter().any(|f| f.starts_with("max-age=")),
        "the cookie expires: {set_cookie}"
    );
    assert!(cookie.len() > 40, "a long random session id: {cookie}");

    let (status, html) = page(base, "/console/dlq", &cookie).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(row_ids(&html).len(), 100, "the API's default page size");
    let token = csrf(&html);

    let logout = send(
        client()
            .post(format!("{base}/console/logout"))
            .header("cookie", &cookie)
            .form(&[("csrf", token.as_str())]),
    )
    .await;
    assert_eq!(logout.status(), StatusCode::SEE_OTHER);
    let cleared = logout.headers()[SET_COOKIE].to_str().unwrap().to_owned();
    assert!(
        cleared.contains("Max-Age=0") || cleared.contains("Expires"),
        "{cleared}"
    );
    let (status, _) = page(base, "/console/dlq", &cookie).await;
    assert_eq!(
        status,
        StatusCode::SEE_OTHER,
        "the old session id no longer works"
    );
}

#[tokio::test]
async fn actions_refuse_cross_site_requests_and_missing_tokens() {
    let (courier, _data, cookie) = signed_in().await;
    let base = &courier.management;
    let (_, html) = page(base, "/console/dlq?count=10", &cookie).await;
    let token = csrf(&html);
    let target = row_ids(&html)[0].clone();
    let delete = format!("{base}/console/dlq/{target}/delete");
    let host = base.trim_start_matches("http://");

    let with_session = || client().post(&delete).header("cookie", &cookie);
    let token = [("csrf", token.as_str())];
    let forbidden = [
        ("no token", with_session().form(&[("other", "x")])),
        ("a wrong token", with_session().form(&[("csrf", "forged")])),
        (
            "another origin",
            with_session()
                .header("origin", "http://evil.example")
                .form(&token),
        ),
        (
            "a cross-site fetch",
            with_session()
                .header("sec-fetch-site", "cross-site")
                .form(&token),
        ),
        // Basic credentials a browser cached are no way around the origin check either.
        (
            "Basic credentials from another origin",
            client()
                .post(&delete)
                .basic_auth(DEMO_CUSTOMER_ID, Some(DEMO_MANAGEMENT_KEY))
                .header("origin", "http://evil.example"),
        ),
    ];
    for (what, request) in forbidden {
        assert_eq!(
            send(request).await.status(),
            StatusCode::FORBIDDEN,
            "{what}"
        );
    }
    assert_eq!(
        api_get_status(base, &target).await,
        StatusCode::OK,
        "nothing was deleted"
    );

    let accepted = send(
        with_session()
            .header("origin", format!("http://{host}"))
            .header("sec-fetch-site", "same-origin")
            .form(&token),
    )
    .await;
    assert_eq!(accepted.status(), StatusCode::SEE_OTHER);
    assert_eq!(api_get_status(base, &target).await, StatusCode::NOT_FOUND);
    let (_, after) = page(base, "/console/dlq?count=10", &cookie).await;
    assert!(
        after.contains(&format!("Deleted the DLQ entry {target}.")),
        "the notice shows"
    );
    assert!(!row_ids(&after).contains(&target));

    // A script with Basic credentials needs no token (it sends no Origin).
    let second = row_ids(&after)[0].clone();
    let scripted = send(
        client()
            .post(format!("{base}/console/dlq/{second}/delete"))
            .basic_auth(DEMO_CUSTOMER_ID, Some(DEMO_MANAGEMENT_KEY)),
    )
    .await;
    assert_eq!(scripted.status(), StatusCode::SEE_OTHER);
    assert_eq!(api_get_status(base, &second).await, StatusCode::NOT_FOUND);
}
