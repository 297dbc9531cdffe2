//! `conformance/schemas/chat_thread.fxs`.

use std::collections::BTreeMap;

use flatbuffers::{FlatBufferBuilder, WIPOffset};
use serde::{Deserialize, Serialize};

use super::{fb_at, fb_box, fb_str, fb_vec, str_field};
use crate::{fb::chat_thread as fb, gen::chat_thread as gen, pb::chat_thread as pb};
use crate::{Field, Fixture, Probe};

/// A chat thread (the root).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatThread {
    pub thread_id: String,
    pub title: String,
    pub participants: Vec<Participant>,
    pub messages: Vec<ChatMessage>,
}

/// A member of the thread.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Participant {
    pub id: i64,
    pub name: String,
    pub handle: String,
    pub role: String,
    pub avatar: String,
}

/// One message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub id: i64,
    pub author: i64,
    pub sent_at: String,
    pub kind: String,
    pub text: String,
    pub reactions: BTreeMap<String, i64>,
    pub reply_to: Option<i64>,
    pub attachments: Vec<Attachment>,
    pub edited: bool,
    pub metadata: ChatMetadata,
}

/// An attached image or file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Attachment {
    #[serde(rename = "type")]
    pub kind: String,
    pub size: i64,
    pub url: Option<String>,
    pub width: Option<i64>,
    pub height: Option<i64>,
    pub alt: Option<String>,
    pub name: Option<String>,
    pub mime: Option<String>,
    pub sha256: Option<String>,
}

/// Per-kind extras.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatMetadata {
    pub client: Option<String>,
    pub lang: Option<String>,
    pub event: Option<String>,
    pub actor: Option<i64>,
    pub options: Option<Vec<String>>,
    pub votes: Option<Vec<i64>>,
    pub closes_at: Option<String>,
    pub multiple: Option<bool>,
}

impl From<&ChatThread> for fb::ChatThreadT {
    fn from(v: &ChatThread) -> Self {
        fb::ChatThreadT {
            thread_id: fb_str(&v.thread_id),
            title: fb_str(&v.title),
            participants: fb_vec(&v.participants),
            messages: fb_vec(&v.messages),
        }
    }
}

impl From<&Participant> for fb::ParticipantT {
    fn from(v: &Participant) -> Self {
        fb::ParticipantT {
            id: v.id,
            name: fb_str(&v.name),
            handle: fb_str(&v.handle),
            role: fb_str(&v.role),
            avatar: fb_str(&v.avatar),
        }
    }
}

impl From<&ChatMessage> for fb::ChatMessageT {
    fn from(v: &ChatMessage) -> Self {
        fb::ChatMessageT {
            id: v.id,
            author: v.author,
            sent_at: fb_str(&v.sent_at),
            kind: fb_str(&v.kind),
            text: fb_str(&v.text),
            reactions: Some(
                v.reactions
                    .iter()
                    .map(|(key, value)| fb::ReactionEntryT {
                        key: fb_str(key),
                        value: *value,
                    })
                    .collect(),
            ),
            reply_to: v.reply_to,
            attachments: fb_vec(&v.attachments),
            edited: v.edited,
            metadata: fb_box(&v.metadata),
        }
    }
}

impl From<&Attachment> for fb::AttachmentT {
    fn from(v: &Attachment) -> Self {
        fb::AttachmentT {
            type_: fb_str(&v.kind),
            size_: v.size,
            url: v.url.clone(),
            width: v.width,
            height: v.height,
            alt: v.alt.clone(),
            name: v.name.clone(),
            mime: v.mime.clone(),
            sha256: v.sha256.clone(),
        }
    }
}

impl From<&ChatMetadata> for fb::ChatMetadataT {
    fn from(v: &ChatMetadata) -> Self {
        fb::ChatMetadataT {
            client: v.client.clone(),
            lang: v.lang.clone(),
            event: v.event.clone(),
            actor: v.actor,
            options: v.options.clone(),
            votes: v.votes.clone(),
            closes_at: v.closes_at.clone(),
            multiple: v.multiple,
        }
    }
}

/// The message the partial read looks at.
const MESSAGE: usize = 50;

impl Fixture for ChatThread {
    const NAME: &'static str = "chat_thread";
    const PARTIAL: &'static str =
        "`messages[50].author`, `messages[50].text`, `messages[50].reply_to`";

    type Gen = gen::ChatThread;
    type GenRef<'a> = gen::ChatThreadRef<'a>;
    type Serde = Self;
    type SerdeRef<'a> = crate::serde_ref::chat_thread::ChatThread<'a>;
    type Proto = pb::ChatThread;
    type Fb = fb::ChatThreadT;
    type FbRoot<'a> = fb::ChatThread<'a>;

    fn to_fb(value: &Self) -> Self::Fb {
        value.into()
    }

    fn fb_pack<'b>(value: &Self::Fb, b: &mut FlatBufferBuilder<'b>) -> WIPOffset<Self::FbRoot<'b>> {
        value.pack(b)
    }

    fn fb_unpack(root: Self::FbRoot<'_>) -> Self::Fb {
        root.unpack()
    }

    fn probe_owned(value: &gen::ChatThread) -> Probe<'_> {
        match value.messages.get(MESSAGE) {
            Some(m) => [
                Field::Int(m.author),
                Field::Str(&m.text),
                m.reply_to.map_or(Field::Absent, Field::Int),
            ],
            None => [Field::Absent; 3],
        }
    }

    fn probe_view(bytes: &[u8]) -> flexbuf::Result<Probe<'_>> {
        let root = gen::ChatThreadView::from_bytes(bytes)?;
        let m = root.messages()?.get(MESSAGE)?;
        Ok([
            Field::Int(m.author()?),
            Field::Str(m.text()?),
            m.reply_to()?.map_or(Field::Absent, Field::Int),
        ])
    }

    fn probe_fb<'a>(root: Self::FbRoot<'a>) -> Probe<'a> {
        match fb_at(root.messages(), MESSAGE) {
            Some(m) => [
                Field::Int(m.author()),
                str_field(m.text()),
                m.reply_to().map_or(Field::Absent, Field::Int),
            ],
            None => [Field::Absent; 3],
        }
    }
}
