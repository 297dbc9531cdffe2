//! Record collections shaped like the datasets Rust serialization
//! benchmarks publish (a web server's access log, a 3-D mesh, a game's
//! saved players, a multiplayer game's state updates), generated from a
//! fixed seed. The types and values are our own; what they share with those
//! datasets is their shape: small structs nested in large vectors,
//! integers of every width, `f32` triples, `Option`s, unit and data-carrying
//! enums, fixed arrays, tuples, vectors of bools and of bytes.

#![allow(dead_code)]

use serde::{Deserialize, Serialize};

/// A small deterministic generator (xorshift64*), so every run and every
/// contender sees the same values.
pub struct Gen(u64);

impl Gen {
    pub fn new(seed: u64) -> Gen {
        Gen(seed | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    pub fn chance(&mut self, in_n: u64) -> bool {
        self.below(in_n) == 0
    }

    pub fn f32(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }

    pub fn f64(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A word of `len` lowercase letters.
    pub fn word(&mut self, len: usize) -> String {
        (0..len)
            .map(|_| (b'a' + self.below(26) as u8) as char)
            .collect()
    }
}

// ---- an access log ---------------------------------------------------

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct Ipv4 {
    pub a: u8,
    pub b: u8,
    pub c: u8,
    pub d: u8,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct Hit {
    pub address: Ipv4,
    pub identity: String,
    pub userid: String,
    pub date: String,
    pub request: String,
    pub code: u16,
    pub size: u64,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct AccessLog {
    pub hits: Vec<Hit>,
}

pub fn access_log(n: usize) -> AccessLog {
    let mut g = Gen::new(0x10c5);
    const METHODS: [&str; 4] = ["GET", "POST", "PUT", "DELETE"];
    const CODES: [u16; 6] = [200, 200, 200, 304, 404, 500];
    let hits = (0..n)
        .map(|_| {
            let user = g.word(6);
            Hit {
                address: Ipv4 {
                    a: g.below(256) as u8,
                    b: g.below(256) as u8,
                    c: g.below(256) as u8,
                    d: g.below(256) as u8,
                },
                identity: if g.chance(4) { g.word(8) } else { "-".into() },
                userid: if g.chance(3) { user } else { "-".into() },
                date: format!(
                    "{:02}/Oct/2026:{:02}:{:02}:{:02} +0000",
                    1 + g.below(28),
                    g.below(24),
                    g.below(60),
                    g.below(60)
                ),
                request: format!(
                    "{} /{}/{}.html HTTP/1.1",
                    METHODS[g.below(4) as usize],
                    g.word(5),
                    g.word(8)
                ),
                code: CODES[g.below(6) as usize],
                size: g.below(100_000_000),
            }
        })
        .collect();
    AccessLog { hits }
}

// ---- a mesh ------------------------------------------------------------

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
pub struct Point {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct Face {
    pub a: Point,
    pub b: Point,
    pub c: Point,
    pub normal: Point,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct Mesh {
    pub faces: Vec<Face>,
}

pub fn mesh(n: usize) -> Mesh {
    let mut g = Gen::new(0x3e54);
    let mut p = || Point {
        x: g.f32() * 100.0 - 50.0,
        y: g.f32() * 100.0 - 50.0,
        z: g.f32() * 100.0 - 50.0,
    };
    let faces = (0..n)
        .map(|_| Face {
            a: p(),
            b: p(),
            c: p(),
            normal: p(),
        })
        .collect();
    Mesh { faces }
}

// ---- a game's saved players -----------------------------------------

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
pub enum Mode {
    Survival,
    Creative,
    Adventure,
    Spectator,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct Slot {
    pub count: i8,
    pub slot: u8,
    pub id: String,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct Abilities {
    pub walk_speed: f32,
    pub fly_speed: f32,
    pub may_fly: bool,
    pub flying: bool,
    pub invulnerable: bool,
    pub may_build: bool,
    pub instabuild: bool,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct Creature {
    pub id: String,
    pub pos: (f64, f64, f64),
    pub motion: (f64, f64, f64),
    pub rotation: (f32, f32),
    pub fall_distance: f32,
    pub fire: u16,
    pub air: u16,
    pub on_ground: bool,
    pub no_gravity: bool,
    pub portal_cooldown: i32,
    pub uuid: [u32; 4],
    pub custom_name: Option<String>,
    pub silent: bool,
    pub tags: Option<Vec<String>>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct Recipes {
    pub known: Vec<String>,
    pub shown: Vec<String>,
    pub gui_open: bool,
    pub filtering: bool,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct Player {
    pub mode: Mode,
    pub previous_mode: Mode,
    pub score: i64,
    pub dimension: String,
    pub held_slot: u32,
    pub held: Slot,
    pub spawn: Option<(i64, i64, i64)>,
    pub sleep_timer: u16,
    pub food: (f32, f32, u32),
    pub xp_level: u32,
    pub xp_progress: f32,
    pub xp_seed: i32,
    pub inventory: Vec<Slot>,
    pub ender_chest: Vec<Slot>,
    pub abilities: Abilities,
    pub nether_entry: Option<(f64, f64, f64)>,
    pub mount: Option<Creature>,
    pub shoulder: Option<Creature>,
    pub seen_credits: bool,
    pub recipes: Recipes,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct SaveData {
    pub players: Vec<Player>,
}

fn slot(g: &mut Gen) -> Slot {
    const IDS: [&str; 6] = [
        "stone",
        "oak_planks",
        "iron_pickaxe",
        "bread",
        "torch",
        "diamond_sword",
    ];
    Slot {
        count: 1 + g.below(64) as i8,
        slot: g.below(36) as u8,
        id: format!("game:{}", IDS[g.below(6) as usize]),
    }
}

fn creature(g: &mut Gen) -> Creature {
    Creature {
        id: format!("game:{}", g.word(5)),
        pos: (g.f64() * 1e4, g.f64() * 256.0, g.f64() * 1e4),
        motion: (g.f64() - 0.5, g.f64() - 0.5, g.f64() - 0.5),
        rotation: (g.f32() * 360.0, g.f32() * 180.0 - 90.0),
        fall_distance: g.f32() * 10.0,
        fire: g.below(400) as u16,
        air: 300,
        on_ground: g.chance(2),
        no_gravity: g.chance(20),
        portal_cooldown: g.below(300) as i32,
        uuid: [
            g.next() as u32,
            g.next() as u32,
            g.next() as u32,
            g.next() as u32,
        ],
        custom_name: g.chance(3).then(|| g.word(7)),
        silent: g.chance(10),
        tags: g
            .chance(4)
            .then(|| (0..1 + g.below(3)).map(|_| g.word(6)).collect()),
    }
}

pub fn save_data(n: usize) -> SaveData {
    let mut g = Gen::new(0x5a7e);
    const MODES: [Mode; 4] = [
        Mode::Survival,
        Mode::Creative,
        Mode::Adventure,
        Mode::Spectator,
    ];
    let players = (0..n)
        .map(|_| Player {
            mode: MODES[g.below(4) as usize],
            previous_mode: MODES[g.below(4) as usize],
            score: g.below(1_000_000) as i64,
            dimension: "game:overworld".into(),
            held_slot: g.below(9) as u32,
            held: slot(&mut g),
            spawn: g.chance(2).then(|| {
                (
                    g.below(20_000) as i64 - 10_000,
                    g.below(256) as i64,
                    g.below(20_000) as i64 - 10_000,
                )
            }),
            sleep_timer: g.below(100) as u16,
            food: (g.f32() * 4.0, g.f32() * 20.0, g.below(80) as u32),
            xp_level: g.below(100) as u32,
            xp_progress: g.f32(),
            xp_seed: g.next() as i32,
            inventory: (0..g.below(36)).map(|_| slot(&mut g)).collect(),
            ender_chest: (0..g.below(8)).map(|_| slot(&mut g)).collect(),
            abilities: Abilities {
                walk_speed: 0.1,
                fly_speed: 0.05,
                may_fly: g.chance(4),
                flying: g.chance(8),
                invulnerable: g.chance(8),
                may_build: true,
                instabuild: g.chance(8),
            },
            nether_entry: g
                .chance(3)
                .then(|| (g.f64() * 1e3, g.f64() * 128.0, g.f64() * 1e3)),
            mount: g.chance(5).then(|| creature(&mut g)),
            shoulder: g.chance(5).then(|| creature(&mut g)),
            seen_credits: g.chance(10),
            recipes: Recipes {
                known: (0..g.below(30))
                    .map(|_| format!("game:{}", g.word(8)))
                    .collect(),
                shown: (0..g.below(5))
                    .map(|_| format!("game:{}", g.word(8)))
                    .collect(),
                gui_open: g.chance(2),
                filtering: g.chance(2),
            },
        })
        .collect();
    SaveData { players }
}

// ---- a game's state updates -----------------------------------------

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
pub enum Unit {
    Cruiser,
    Destroyer,
    Submarine,
    Carrier,
    Torpedo,
    Missile,
    Mine,
    Plane,
    Barrel,
    Crate,
    Coin,
    Buoy,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct Steering {
    pub heading: f32,
    pub speed: f32,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct Pose {
    pub altitude: i8,
    pub angle: u16,
    pub position: (f32, f32),
    pub velocity: i16,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct Contact {
    pub damage: u8,
    pub id: u32,
    pub unit: Option<Unit>,
    pub steering: Option<Steering>,
    pub owner: Option<u16>,
    pub reloads: Vec<bool>,
    pub pose: Pose,
    pub turrets: Vec<u16>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub enum Event {
    Joined { player: u16, name: String },
    Sank(u32),
    Chat { from: u16, text: String },
    Tick,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct Terrain {
    pub chunk: (i8, i8),
    pub data: Vec<u8>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct Update {
    pub contacts: Vec<Contact>,
    pub events: Vec<Event>,
    pub score: u32,
    pub world_radius: f32,
    pub terrain: Vec<Terrain>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct Updates {
    pub updates: Vec<Update>,
}

pub fn updates(n: usize) -> Updates {
    use Unit::*;
    const UNITS: [Unit; 12] = [
        Cruiser, Destroyer, Submarine, Carrier, Torpedo, Missile, Mine, Plane, Barrel, Crate, Coin,
        Buoy,
    ];
    let mut g = Gen::new(0x3e48);
    let updates = (0..n)
        .map(|_| Update {
            contacts: (0..g.below(40))
                .map(|_| Contact {
                    damage: g.below(256) as u8,
                    id: g.next() as u32,
                    unit: (!g.chance(10)).then(|| UNITS[g.below(12) as usize]),
                    steering: g.chance(2).then(|| Steering {
                        heading: g.f32() * core::f32::consts::TAU,
                        speed: g.f32() * 20.0,
                    }),
                    owner: g.chance(2).then(|| g.below(500) as u16),
                    reloads: (0..g.below(6)).map(|_| g.chance(2)).collect(),
                    pose: Pose {
                        altitude: g.below(256) as u8 as i8,
                        angle: g.below(65536) as u16,
                        position: (g.f32() * 2e3 - 1e3, g.f32() * 2e3 - 1e3),
                        velocity: g.below(2000) as i16 - 1000,
                    },
                    turrets: (0..g.below(4)).map(|_| g.below(65536) as u16).collect(),
                })
                .collect(),
            events: (0..g.below(4))
                .map(|_| match g.below(4) {
                    0 => Event::Joined {
                        player: g.below(500) as u16,
                        name: g.word(8),
                    },
                    1 => Event::Sank(g.next() as u32),
                    2 => Event::Chat {
                        from: g.below(500) as u16,
                        text: format!("{} {} {}", g.word(4), g.word(6), g.word(3)),
                    },
                    _ => Event::Tick,
                })
                .collect(),
            score: g.below(100_000) as u32,
            world_radius: 1000.0 + g.f32() * 500.0,
            terrain: (0..g.below(3))
                .map(|_| Terrain {
                    chunk: (g.below(16) as i8 - 8, g.below(16) as i8 - 8),
                    data: (0..64 + g.below(128)).map(|_| g.below(256) as u8).collect(),
                })
                .collect(),
        })
        .collect();
    Updates { updates }
}

// ---- metric samples ---------------------------------------------------

/// Label names of the samples, in the order an agent writes them.
const LABEL_KEYS: [&str; 8] = [
    "env", "region", "zone", "service", "instance", "team", "version", "path",
];
/// Counter names of the samples.
const COUNTER_KEYS: [&str; 7] = [
    "requests",
    "errors",
    "retries",
    "bytes_in",
    "bytes_out",
    "p50_us",
    "p99_us",
];

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct Sample {
    pub name: String,
    pub labels: std::collections::BTreeMap<String, String>,
    pub counters: std::collections::BTreeMap<String, i64>,
    pub value: f64,
    pub timestamp: i64,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct Samples {
    pub samples: Vec<Sample>,
}

/// `n` metric samples: each with a subset of the label and counter names.
pub fn samples(n: usize) -> Samples {
    let mut g = Gen::new(5);
    let samples = (0..n)
        .map(|i| {
            let mut labels = std::collections::BTreeMap::new();
            for k in LABEL_KEYS {
                if !g.chance(3) {
                    let len = 3 + g.below(8) as usize;
                    labels.insert(k.to_string(), g.word(len));
                }
            }
            let mut counters = std::collections::BTreeMap::new();
            for k in COUNTER_KEYS {
                if g.chance(2) {
                    counters.insert(k.to_string(), g.below(1 << 40) as i64);
                }
            }
            Sample {
                name: format!("svc.{}.{}", g.word(6), g.word(4)),
                labels,
                counters,
                value: g.f64() * 1e3,
                timestamp: 1_700_000_000_000 + 15_000 * i as i64,
            }
        })
        .collect();
    Samples { samples }
}
