//! `courier --base-url URL dlq list`: the connection flags written before the command group,
//! moved to just after it, where clap accepts them.

use super::CommonArgs;

/// Moves the connection flags written before the command group to just after it, so that
/// `courier --base-url URL dlq list` parses as `courier dlq --base-url URL list`: clap accepts
/// a flag of a group only after the group's name, and a top-level copy of the flags would clash
/// with `serve`'s own `--service-token`. Flags before `serve` or anything else stay where they
/// are, and clap refuses them there.
pub(crate) fn leading_flags_after_the_group(
    args: Vec<String>,
    is_group: impl Fn(&str) -> bool,
) -> Vec<String> {
    // Most command lines start with their command; they are left as they are without building
    // the flags' parser, which is a measurable part of `courier serve`'s start.
    if !args.get(1).is_some_and(|first| first.starts_with('-')) {
        return args;
    }
    let command = <CommonArgs as clap::Args>::augment_args(clap::Command::new("courier"));
    // Whether `token` is one of the flags, and whether its value is the next token.
    let takes_value = |token: &str| -> Option<bool> {
        let (argument, inline) = if let Some(long) = token.strip_prefix("--") {
            let (name, inline) = long
                .split_once('=')
                .map_or((long, false), |(n, _)| (n, true));
            let argument = command
                .get_arguments()
                .find(|argument| argument.get_long() == Some(name))?;
            (argument, inline)
        } else {
            let short = token.strip_prefix('-')?.chars().next()?;
            let argument = command
                .get_arguments()
                .find(|argument| argument.get_short() == Some(short))?;
            (argument, token.len() > 2)
        };
        Some(argument.get_action().takes_values() && !inline)
    };
    let mut leading = Vec::new();
    let mut rest = args.into_iter();
    let program = rest.next();
    let mut pending: Vec<String> = rest.collect();
    let mut index = 0;
    while index < pending.len() {
        let token = pending[index].clone();
        match takes_value(&token) {
            Some(true) if index + 1 < pending.len() => {
                leading.extend(pending[index..index + 2].iter().cloned());
                index += 2;
            }
            Some(_) => {
                leading.push(token);
                index += 1;
            }
            None => break,
        }
    }
    let moved = !leading.is_empty() && pending.get(index).is_some_and(|group| is_group(group));
    let mut result: Vec<String> = program.into_iter().collect();
    if moved {
        let after = pending.split_off(index + 1);
        result.push(pending[index].clone());
        result.extend(leading);
        result.extend(after);
    } else {
        result.extend(pending);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::leading_flags_after_the_group;

    fn moved(args: &str) -> String {
        let args = args.split(' ').map(str::to_owned).collect();
        leading_flags_after_the_group(args, |group| ["dlq", "stats"].contains(&group)).join(" ")
    }

    #[test]
    fn connection_flags_before_the_group_move_after_it() {
        assert_eq!(
            moved("courier --base-url http://x dlq list --label a"),
            "courier dlq --base-url http://x list --label a"
        );
        assert_eq!(
            moved("courier --base-url=http://x -o json --retries 0 stats account"),
            "courier stats --base-url=http://x -o json --retries 0 account"
        );
        assert_eq!(moved("courier -ojson dlq list"), "courier dlq -ojson list");
    }

    #[test]
    fn anything_else_is_left_for_clap_to_judge() {
        assert_eq!(
            moved("courier dlq list --base-url u"),
            "courier dlq list --base-url u"
        );
        assert_eq!(
            moved("courier --service-token t serve"),
            "courier --service-token t serve"
        );
        assert_eq!(moved("courier --version"), "courier --version");
        assert_eq!(moved("courier --help dlq"), "courier --help dlq");
    }
}
