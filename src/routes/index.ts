import { bankAccountTransactionAssignmentRoutes } from './bank-account-transactions/assignments';
import { bankAccountTransactionRoutes } from './bank-account-transactions/bank-account-transactions';
import { dunningDocumentRoutes } from './dunning/documents';
import { dunningRuleRoutes } from './dunning/overdue-rules';
import { gatewayWebhookRoutes } from './gateway-webhooks/gateway-webhooks';
import { openBankingAccountRoutes } from './open-banking-accounts/open-banking-accounts';
import { customerPaymentMethodListRoutes } from './payment-methods/customer-payment-methods';
import { paymentMethodRoutes } from './payment-methods/payment-methods';
import { sepaXmlRoutes } from './sepa-xml/sepa-xml';
import { gatewaySettingsRoutes } from './settings/gateways';
import { transactionRoutes } from './transactions/transactions';
import { tenantRoutes } from './admin/tenants';
import { apiKeyRoutes } from './api-keys/api-keys';
import { authRoutes } from './auth/auth';
import { customerOtpRoutes } from './auth/customer-otp';
import { billingGroupRoutes } from './billing-groups/billing-groups';
import { billingRunRoutes } from './billing-runs/billing-runs';
import { cancellationReasonRoutes } from './cancellation-reasons/cancellation-reasons';
import { contactPersonRoutes } from './contact-persons/contact-persons';
import { costCentreRoutes } from './cost-centres/cost-centres';
import { couponRoutes } from './coupons/coupons';
import { customFieldRoutes } from './custom-fields/custom-fields';
import { customerGroupRoutes } from './customer-groups/customer-groups';
import { customerAddressRoutes } from './customers/addresses';
import { customerBillingSettingsRoutes } from './customers/billing-settings';
import { customerRoutes } from './customers/customers';
import { customerEmailRoutes } from './customers/email-addresses';
import { customerPaymentMethodRoutes } from './customers/payment-methods';
import { customerSessionRoutes } from './customers/sessions';
import { entitlementRoutes } from './entitlements/entitlements';
import { featureAssignmentRoutes } from './entitlements/feature-assignments';
import { featureRoutes } from './entitlements/features';
import { exchangeRateRoutes } from './exchange-rates/exchange-rates';
import { invoiceCommentRoutes } from './invoices/comments';
import { invoiceDetailRoutes } from './invoices/details';
import { invoiceDocumentRoutes } from './invoices/documents';
import { invoiceRoutes } from './invoices/invoices';
import { invoiceLifecycleRoutes } from './invoices/lifecycle';
import { invoicePaymentRoutes } from './invoices/payments';
import { invoicePositionRoutes } from './invoices/positions';
import { measurementRoutes } from './measurements/measurements';
import { planRoutes } from './plans/plans';
import { pricePlanRoutes } from './price-plans/price-plans';
import { productFamilyRoutes } from './product-families/product-families';
import { productRoutes } from './products/products';
import { documentSettingsRoutes } from './settings/documents';
import { settingsRoutes } from './settings/settings';
import { tenantSlugRoutes } from './settings/tenant-slug';
import { subscriptionItemRoutes } from './subscription-items/subscription-items';
import { subscriptionCommentRoutes } from './subscriptions/comments';
import { subscriptionDetailRoutes } from './subscriptions/details';
import { subscriptionEstimateRoutes } from './subscriptions/estimates';
import { subscriptionLifecycleRoutes } from './subscriptions/lifecycle';
import { subscriptionRoutes } from './subscriptions/subscriptions';
import { usageRoutes } from './subscriptions/usage';
import { systemRoutes } from './system/system';
import { taxGroupRoutes } from './tax-groups/tax-groups';
import { taxRoutes } from './taxes/taxes';
import { testClockRoutes } from './test-clock/test-clock';
import { unitRoutes } from './units/units';
import { webhookDeliveryRoutes } from './webhooks/deliveries';
import { webhookRoutes } from './webhooks/webhooks';
import { checkoutLinkRoutes } from './checkout-links/checkout-links';
import { publicCheckoutRoutes } from './public-checkout/carts';
import { checkoutCartRoutes } from './checkout-carts/checkout-carts';
import { offerRoutes } from './offers/offers';
import { offerRecipientRoutes } from './offers/recipients';
import { offerTemplateRoutes } from './offers/templates';
import { publicOfferRoutes } from './offers/public-offers';

/** Every router of the API, in the order the OpenAPI document lists them. */
export const routers = [
  systemRoutes,
  tenantRoutes,
  authRoutes,
  customerOtpRoutes,
  apiKeyRoutes,
  testClockRoutes,
  settingsRoutes,
  tenantSlugRoutes,
  documentSettingsRoutes,
  customFieldRoutes,
  customerGroupRoutes,
  contactPersonRoutes,
  customerRoutes,
  customerBillingSettingsRoutes,
  customerSessionRoutes,
  customerAddressRoutes,
  customerEmailRoutes,
  customerPaymentMethodRoutes,
  productFamilyRoutes,
  unitRoutes,
  measurementRoutes,
  costCentreRoutes,
  cancellationReasonRoutes,
  billingGroupRoutes,
  taxGroupRoutes,
  taxRoutes,
  productRoutes,
  pricePlanRoutes,
  planRoutes,
  couponRoutes,
  usageRoutes,
  subscriptionRoutes,
  subscriptionLifecycleRoutes,
  subscriptionDetailRoutes,
  subscriptionCommentRoutes,
  subscriptionEstimateRoutes,
  subscriptionItemRoutes,
  featureRoutes,
  featureAssignmentRoutes,
  entitlementRoutes,
  invoiceRoutes,
  invoicePositionRoutes,
  invoiceLifecycleRoutes,
  invoicePaymentRoutes,
  invoiceDetailRoutes,
  invoiceDocumentRoutes,
  invoiceCommentRoutes,
  paymentMethodRoutes,
  customerPaymentMethodListRoutes,
  transactionRoutes,
  sepaXmlRoutes,
  bankAccountTransactionRoutes,
  bankAccountTransactionAssignmentRoutes,
  openBankingAccountRoutes,
  gatewaySettingsRoutes,
  gatewayWebhookRoutes,
  dunningRuleRoutes,
  dunningDocumentRoutes,
  billingRunRoutes,
  exchangeRateRoutes,
  webhookRoutes,
  webhookDeliveryRoutes,
  checkoutLinkRoutes,
  checkoutCartRoutes,
  publicCheckoutRoutes,
  offerTemplateRoutes,
  offerRoutes,
  offerRecipientRoutes,
  publicOfferRoutes,
];
