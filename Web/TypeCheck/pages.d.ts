// What the pages use that TypeScript 4.8's DOM types do not name yet, and the hooks the browser tests read.

// WebOTP: Chrome on Android hands the page the code of an SMS (sign-in.js).
interface CredentialRequestOptions {
  otp?: { transport: string[] };
}
interface Credential {
  code?: string;
}

// The Screen Wake Lock API keeps the screen on during navigation (rider-nav.js).
interface WakeLockSentinel extends EventTarget {
  release(): Promise<void>;
}
interface Navigator {
  wakeLock: { request(type: 'screen'): Promise<WakeLockSentinel> };
}

interface Window {
  // For Tests/Browser: the rider app's queue, screen and service worker; the dispatcher's markers on the map.
  riderApp: unknown;
  dispatchMarkers: () => { name: string | null; at: [number, number] }[];
  // The customer's tracking page: the road left as drawn, and where the rider's marker points.
  trackingRoute: () => { metres: number; points: number; heading: number | null; rider: number[] | null };
}
