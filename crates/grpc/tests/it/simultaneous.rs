//! The simultaneous-node paths of matches and envs, driven with the engine's fixture game
//! (`checkraise_core::testing`: both seats pick 0, 1 or 2 at once each round, seat 0 scoring
//! when the picks match, seat 1 when they differ), whose games are a few joint actions long
//! (prediction chess is simultaneous too, but its games are long): choices wait hidden until
//! every seat has chosen.

use std::sync::Arc;

use checkraise_core::bots::RandomBot;
use checkraise_core::testing::Fixture;
use checkraise_core::vector::AutoresetMode;
use checkraise_core::{Game, Player};
use checkraise_grpc::envs::{EnvBatch, EnvOptions};
use checkraise_grpc::live_match::{ActionChoice, LegalAction, LiveMatch, Seat, SeatKind};
use checkraise_grpc::tensor::i32_tensor;
use tonic::{Code, Status};

/// The fixture: `rounds` joint rounds, picks 0 to 2.
fn picks(rounds: usize) -> Arc<dyn Game> {
    Fixture::<true>::game(&[("rounds", &rounds.to_string()), ("picks", "3")])
}

fn human() -> Seat {
    Seat {
        connected: false,
        kind_name: "human".to_string(),
        kind: SeatKind::Human { token_hash: None },
    }
}

fn two_humans(rounds: usize) -> LiveMatch {
    let mut live =
        LiveMatch::new("m".to_string(), picks(rounds), 1, vec![human(), human()]).unwrap();
    live.join(Some(0), "t0".to_string()).unwrap();
    live.join(Some(1), "t1".to_string()).unwrap();
    live
}

#[test]
fn a_pending_choice_stays_hidden_until_every_seat_has_chosen() {
    let mut live = two_humans(2);
    // Seat 1 watches first (which connects it: its view says so from here on).
    let (mut watch1, _) = live.watch(Some(1));
    let _snapshot = watch1.try_recv().unwrap().unwrap();
    let before = live.view(Some(1));
    assert!(before.may_act && !before.action_submitted);
    assert_eq!(before.current_player, Player::Simultaneous);

    live.act(0, ActionChoice::Id(2)).unwrap();
    // Seat 1 sees exactly what it saw before seat 0 chose: same bytes, same version.
    assert_eq!(live.view(Some(1)), before);
    assert!(
        watch1.try_recv().is_err(),
        "a pending choice must not be broadcast"
    );
    let mine = live.view(Some(0));
    assert!(mine.action_submitted && !mine.may_act && mine.legal_actions.is_empty());
    let spectator = live.view(None);
    assert_eq!(spectator.version, 0);
    let spectator_json = spectator
        .view_json
        .expect("a spectator's view has its JSON");
    assert!(!spectator_json.contains('2'), "{spectator_json}");

    let again = Status::from(live.act(0, ActionChoice::Id(1)).unwrap_err());
    assert_eq!(again.code(), Code::FailedPrecondition);
    let illegal = Status::from(live.act(1, ActionChoice::Id(7)).unwrap_err());
    assert_eq!(illegal.code(), Code::InvalidArgument);
    let bad_text = Status::from(live.act(1, ActionChoice::Text("pick9".into())).unwrap_err());
    assert_eq!(bad_text.code(), Code::InvalidArgument);

    live.act(1, ActionChoice::Text("pick1".into())).unwrap();
    let event = watch1.try_recv().unwrap().unwrap();
    assert_eq!(event.actor, Some(Player::Simultaneous));
    assert_eq!(
        event.own_action,
        Some(LegalAction {
            id: 1,
            text: Some("pick1".into()),
            action_json: None,
        })
    );
    let view = event.view.clone();
    assert_eq!(view.version, 1);
    assert!(view.view_json.unwrap().contains("\"revealed\":[2,1]"));
    assert!(view.may_act && !view.action_submitted);

    // Both rounds' picks differ: seat 1 wins both points.
    live.act(1, ActionChoice::Id(0)).unwrap();
    live.act(0, ActionChoice::Id(1)).unwrap();
    let last = live.view(Some(0));
    assert!(last.is_terminal);
    assert_eq!(last.returns, vec![-2.0, 2.0]);
    let over = Status::from(live.act(0, ActionChoice::Id(0)).unwrap_err());
    assert_eq!(over.code(), Code::FailedPrecondition);
}

#[test]
fn a_bot_chooses_at_once_and_the_joint_action_applies_when_the_human_chooses() {
    let mut live = LiveMatch::new(
        "m".to_string(),
        picks(3),
        5,
        vec![
            human(),
            Seat {
                connected: false,
                kind_name: "random".to_string(),
                kind: SeatKind::Bot(Box::new(RandomBot)),
            },
        ],
    )
    .unwrap();
    live.join(None, "t".to_string()).unwrap();
    for round in 0..3 {
        let view = live.view(Some(0));
        assert_eq!(view.version, round);
        assert!(view.may_act);
        live.act(0, ActionChoice::Id(1)).unwrap();
    }
    assert!(live.view(Some(0)).is_terminal);
}

#[test]
fn simultaneous_envs_need_all_seats_and_take_joint_actions() {
    let game = picks(2);
    // Refused at creation (the engine's batch needs every seat's rows for such a game).
    let refused = EnvBatch::new(game.clone(), 2, 0, false).err().unwrap();
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert!(refused.message().contains("all_seats"));

    let mut batch = EnvBatch::new(game.clone(), 2, 0, true).unwrap();
    let first = batch.fresh_reply();
    assert_eq!(first.action_masks.unwrap().shape, vec![2, 2, 3]);
    // Env 0's picks match (seat 0 scores), env 1's differ (seat 1 scores).
    let step = batch.step(&i32_tensor(vec![2, 2], &[2, 2, 0, 2])).unwrap();
    assert_eq!(step.terminated.unwrap().data, vec![0, 0]);
    let illegal = batch
        .step(&i32_tensor(vec![2, 2], &[2, 2, 0, 5]))
        .unwrap_err();
    assert_eq!(illegal.code(), Code::InvalidArgument);
    assert!(illegal.message().contains("env 1"));
    let last = batch.step(&i32_tensor(vec![2, 2], &[2, 2, 0, 2])).unwrap();
    assert_eq!(last.terminated.as_ref().unwrap().data, vec![1, 1]);
    let finals: Vec<f32> = last
        .final_returns
        .unwrap()
        .data
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    assert_eq!(finals, vec![2.0, -2.0, -2.0, 2.0]);
    // Next-step mode: the games stay over until the next step, which ignores the actions.
    assert_eq!(
        last.current_players.unwrap().data,
        [(-4i32).to_le_bytes(); 2].concat()
    );
    let reset = batch.step(&i32_tensor(vec![2, 2], &[-1; 4])).unwrap();
    assert_eq!(reset.terminated.unwrap().data, vec![0, 0]);
    assert_eq!(
        reset.current_players.unwrap().data,
        [(-2i32).to_le_bytes(); 2].concat()
    );

    // Same-step mode: the step that ends the games starts the next ones.
    let options = EnvOptions {
        all_seats: true,
        autoreset_mode: AutoresetMode::SameStep,
        max_episode_steps: None,
        ..EnvOptions::default()
    };
    let mut batch = EnvBatch::with_options(game, 2, 0, options).unwrap();
    batch.step(&i32_tensor(vec![2, 2], &[2, 0, 0, 2])).unwrap();
    let last = batch.step(&i32_tensor(vec![2, 2], &[2, 0, 0, 2])).unwrap();
    assert_eq!(last.terminated.unwrap().data, vec![1, 1]);
    assert_eq!(
        last.current_players.unwrap().data,
        [(-2i32).to_le_bytes(); 2].concat()
    );
    assert_eq!(last.final_observations.unwrap().shape[..2], [2, 2]);
}
