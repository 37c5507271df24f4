// @ts-check
// Proof-of-delivery photos: shrunk in the browser (longest side at most 1600 px, JPEG) before they wait in the
// queue, and uploaded with XMLHttpRequest for its progress events (fetch has none for uploads).
import { ApiError, problemOf } from '../Connection/rider-api.js';

const LONGEST_SIDE = 1600;
const QUALITY = 0.82;

async function decode(file) {
  if ('createImageBitmap' in window) {
    try {
      // 'from-image' (the EXIF orientation) is newer than TypeScript 4.8's DOM types.
      return await createImageBitmap(file, /** @type {ImageBitmapOptions} */ (/** @type {unknown} */ ({ imageOrientation: 'from-image' })));
    } catch (error) {
      // Older engines without the options, or a format the browser cannot draw: try an <img> next.
    }
  }
  const url = URL.createObjectURL(file);
  try {
    const image = new Image();
    image.decoding = 'async';
    image.src = url;
    await image.decode();
    return image;
  } finally {
    URL.revokeObjectURL(url);
  }
}

// → {blob, width, height, shrunk}. A photo the browser cannot draw (HEIC on most browsers) is sent as it is; the
// server accepts JPEG, PNG, HEIC and WebP, and says so when it is too large.
export async function shrinkPhoto(file, preview) {
  let image;
  try {
    image = await decode(file);
  } catch (error) {
    return { blob: file, width: 0, height: 0, shrunk: false };
  }
  const width = image.width || ('naturalWidth' in image ? image.naturalWidth : 0);
  const height = image.height || ('naturalHeight' in image ? image.naturalHeight : 0);
  const scale = Math.min(1, LONGEST_SIDE / Math.max(width, height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(width * scale));
  canvas.height = Math.max(1, Math.round(height * scale));
  canvas.getContext('2d').drawImage(image, 0, 0, canvas.width, canvas.height);
  if ('close' in image) image.close();
  const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/jpeg', QUALITY));
  if (preview) {
    // A small copy on the page, so the rider sees which photo goes.
    const ratio = Math.min(1, 240 / Math.max(canvas.width, canvas.height));
    preview.width = Math.round(canvas.width * ratio);
    preview.height = Math.round(canvas.height * ratio);
    preview.getContext('2d').drawImage(canvas, 0, 0, preview.width, preview.height);
  }
  if (!blob) return { blob: file, width, height, shrunk: false };
  return { blob, width: canvas.width, height: canvas.height, shrunk: true };
}

// POST multipart/form-data with photo, capturedAt, lat, lon, accuracyM; onProgress(0…1).
export function uploadPhoto({ taskId, token, action, onProgress }) {
  return new Promise((resolve, reject) => {
    if (navigator.onLine === false) {
      reject(new ApiError(0, {}, true));
      return;
    }
    const form = new FormData();
    const location = action.location;
    form.append('capturedAt', action.occurredAt);
    form.append('lat', String(location.lat));
    form.append('lon', String(location.lon));
    form.append('accuracyM', String(location.accuracyM ?? 10));
    form.append('photo', action.photo, action.photo.type === 'image/jpeg' ? 'pod.jpg' : 'pod');
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api/v1/rider/tasks/${encodeURIComponent(taskId)}/pod`);
    xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    xhr.setRequestHeader('Accept', 'application/json, application/problem+json');
    xhr.setRequestHeader('Idempotency-Key', action.id);
    xhr.timeout = 120000;
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && onProgress) onProgress(event.loaded / event.total);
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        if (onProgress) onProgress(1);
        try {
          resolve(JSON.parse(xhr.responseText || '{}'));
        } catch (error) {
          resolve({});
        }
      } else {
        reject(new ApiError(xhr.status, problemOf(xhr.status, xhr.responseText, xhr.getResponseHeader('Retry-After'))));
      }
    };
    xhr.onerror = () => reject(new ApiError(0, {}, true));
    xhr.ontimeout = () => reject(new ApiError(0, {}, true));
    xhr.onabort = () => reject(new ApiError(0, {}, true));
    xhr.send(form);
  });
}
