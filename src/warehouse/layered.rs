//! An object store wrapped with one concern: a check before an object's bytes are served, or a
//! filter on what listings show. [`Layered`] passes every other call through to the store it
//! wraps, so each wrapper (the checksum verifier, the compaction view) states only what it
//! adds, as a [`Layer`].

use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use futures::TryStreamExt;
use futures::stream::{BoxStream, StreamExt};
use object_store::path::Path as Key;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult, RenameOptions,
};

/// What a wrapper adds to the store it wraps. Both hooks default to passing through.
#[async_trait]
pub trait Layer: std::fmt::Debug + Send + Sync + 'static {
    /// The wrapper's name, as `Display` shows it: `NAME(inner store)`.
    const NAME: &'static str;

    /// Runs before the bytes of `location` are served (a GET or a range read; not a HEAD).
    /// An error stops the read.
    async fn before_read(
        &self,
        _inner: &dyn ObjectStore,
        _location: &Key,
    ) -> object_store::Result<()> {
        Ok(())
    }

    /// Whether listings show `location`.
    fn shows(&self, _location: &Key) -> bool {
        true
    }
}

/// `inner` with `layer`'s check and filter; everything else passes through.
#[derive(Debug)]
pub struct Layered<L: Layer> {
    inner: Arc<dyn ObjectStore>,
    layer: Arc<L>,
}

impl<L: Layer> Layered<L> {
    pub fn with(inner: Arc<dyn ObjectStore>, layer: L) -> Self {
        Layered {
            inner,
            layer: Arc::new(layer),
        }
    }

    pub fn layer(&self) -> &L {
        &self.layer
    }

    /// `listed` less what the layer hides.
    fn shown(
        &self,
        listed: BoxStream<'static, object_store::Result<ObjectMeta>>,
    ) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        let layer = Arc::clone(&self.layer);
        listed
            .try_filter(move |m| std::future::ready(layer.shows(&m.location)))
            .boxed()
    }
}

impl<L: Layer> std::fmt::Display for Layered<L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}({})", L::NAME, self.inner)
    }
}

#[async_trait]
#[deny(clippy::missing_trait_methods)]
impl<L: Layer> ObjectStore for Layered<L> {
    async fn put_opts(
        &self,
        location: &Key,
        payload: PutPayload,
        opts: PutOptions,
    ) -> object_store::Result<PutResult> {
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Key,
        opts: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(
        &self,
        location: &Key,
        options: GetOptions,
    ) -> object_store::Result<GetResult> {
        if !options.head {
            self.layer
                .before_read(self.inner.as_ref(), location)
                .await?;
        }
        self.inner.get_opts(location, options).await
    }

    async fn get_ranges(
        &self,
        location: &Key,
        ranges: &[std::ops::Range<u64>],
    ) -> object_store::Result<Vec<Bytes>> {
        self.layer
            .before_read(self.inner.as_ref(), location)
            .await?;
        self.inner.get_ranges(location, ranges).await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<Key>>,
    ) -> BoxStream<'static, object_store::Result<Key>> {
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Key>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.shown(self.inner.list(prefix))
    }

    fn list_with_offset(
        &self,
        prefix: Option<&Key>,
        offset: &Key,
    ) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.shown(self.inner.list_with_offset(prefix, offset))
    }

    async fn list_with_delimiter(&self, prefix: Option<&Key>) -> object_store::Result<ListResult> {
        let mut listed = self.inner.list_with_delimiter(prefix).await?;
        listed.objects.retain(|m| self.layer.shows(&m.location));
        Ok(listed)
    }

    async fn copy_opts(
        &self,
        from: &Key,
        to: &Key,
        options: CopyOptions,
    ) -> object_store::Result<()> {
        self.inner.copy_opts(from, to, options).await
    }

    async fn rename_opts(
        &self,
        from: &Key,
        to: &Key,
        options: RenameOptions,
    ) -> object_store::Result<()> {
        self.inner.rename_opts(from, to, options).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use object_store::ObjectStoreExt;
    use object_store::memory::InMemory;

    /// Hides `hidden/…` from listings and refuses to read `secret`.
    #[derive(Debug)]
    struct Guard;

    #[async_trait]
    impl Layer for Guard {
        const NAME: &'static str = "Guard";

        async fn before_read(
            &self,
            _inner: &dyn ObjectStore,
            location: &Key,
        ) -> object_store::Result<()> {
            if location.as_ref() == "secret" {
                return Err(object_store::Error::Generic {
                    store: "test",
                    source: "refused".into(),
                });
            }
            Ok(())
        }

        fn shows(&self, location: &Key) -> bool {
            !location.as_ref().starts_with("hidden/")
        }
    }

    #[tokio::test]
    async fn the_layer_checks_reads_and_filters_listings_and_the_rest_passes_through() {
        let inner: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
        let store = Layered::with(Arc::clone(&inner), Guard);
        for key in ["a", "hidden/b", "secret"] {
            store.put(&Key::from(key), "x".into()).await.unwrap();
        }
        // Writes passed through to the inner store.
        let inner_keys: Vec<_> = inner
            .list(None)
            .map_ok(|m| m.location.to_string())
            .try_collect()
            .await
            .unwrap();
        assert_eq!(inner_keys.len(), 3);
        let mut shown: Vec<String> = store
            .list(None)
            .map_ok(|m| m.location.to_string())
            .try_collect()
            .await
            .unwrap();
        shown.sort();
        assert_eq!(shown, ["a", "secret"]);
        let listed = store.list_with_delimiter(None).await.unwrap();
        let objects: Vec<_> = listed
            .objects
            .iter()
            .map(|m| m.location.to_string())
            .collect();
        assert_eq!(objects.len(), 2, "{objects:?}");
        assert!(store.get(&Key::from("a")).await.is_ok());
        assert!(store.get(&Key::from("secret")).await.is_err());
        assert!(store.get_range(&Key::from("secret"), 0..1).await.is_err());
        // A HEAD is not a read of the bytes.
        assert!(store.head(&Key::from("secret")).await.is_ok());
        assert_eq!(store.to_string(), "Guard(InMemory)");
    }
}
